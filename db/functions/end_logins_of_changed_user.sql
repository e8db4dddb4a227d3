-- Trigger function of users_end_logins (migrations 00008, 00012): a user whose role or password
-- changed, or who was disabled, loses every login in the same statement; a disabled user also
-- loses every pending password-reset link.
create or replace function end_logins_of_changed_user() returns trigger language plpgsql as $$
begin
  delete from logins where user_id = new.id;
  if new.disabled_at is not null then
    delete from password_resets where user_id = new.id;
  end if;
  return new;
end $$;
