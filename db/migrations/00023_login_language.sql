-- One language per login (docs/portal.md, "Language"): the locale a login's pages use. A launch
-- sets it from its payload's locale, else the agent's profile (launch_apply); a password sign-in
-- from the agent's profile; the portal's language menu changes it for that login only. Null (a
-- login made before this column, an admin login): the agent's profile locale.
alter table logins add column locale text;
