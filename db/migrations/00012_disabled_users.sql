-- Portal Launcher: an administrator can disable a user (agent or administrator). A disabled user
-- cannot sign in, reset a password or be logged in by a launch, and disabling ends every login
-- and every pending reset link of that user in the same statement (the trigger below).
alter table users add column disabled_at timestamptz;

create or replace function end_logins_of_changed_user() returns trigger language plpgsql as $$
begin
  delete from logins where user_id = new.id;
  if new.disabled_at is not null then
    delete from password_resets where user_id = new.id;
  end if;
  return new;
end $$;

drop trigger users_end_logins on users;
create trigger users_end_logins
  after update of role, password_hash, disabled_at on users
  for each row
  when (old.role is distinct from new.role
    or old.password_hash is distinct from new.password_hash
    or (old.disabled_at is null and new.disabled_at is not null))
  execute function end_logins_of_changed_user();
