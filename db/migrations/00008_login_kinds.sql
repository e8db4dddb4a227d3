-- Portal Launcher: a login is a portal login or an admin login, accepted only by its own cookie;
-- changing a user's role or password ends every login of that user.
alter table portal_logins rename to logins;
alter index portal_logins_user_id_idx rename to logins_user_id_idx;
alter table logins add column kind text not null default 'portal'
  check (kind in ('portal', 'admin'));
-- Existing logins of administrators were made by the admin sign-in.
update logins l set kind = 'admin' from users u where u.id = l.user_id and u.role = 'admin';

create function end_logins_of_changed_user() returns trigger language plpgsql as $$
begin
  delete from logins where user_id = new.id;
  return new;
end $$;

create trigger users_end_logins
  after update of role, password_hash on users
  for each row
  when (old.role is distinct from new.role or old.password_hash is distinct from new.password_hash)
  execute function end_logins_of_changed_user();
