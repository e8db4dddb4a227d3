-- The id of a row launch_apply inserts (with `overriding system value`): the next value of the
-- table's identity sequence; in a dry run, a random negative id instead, which no sequence ever
-- hands out. A dry run is rolled back but a sequence is not, so drawing from it would leave gaps
-- in session, customer and agent numbers. A dry run's rows never commit, so its ids are unique
-- among committed rows; two concurrent dry runs drawing the same id (odds about 1 in 2^53) only
-- make the second wait for the first's rollback, as any unique key does.
-- PL/pgSQL, as every function that reads a table (migration 00017).
create or replace function launch_row_id(p_table text, p_dry boolean) returns bigint
language plpgsql volatile as $$
begin
  if p_dry then
    return -1 - floor(random() * 9007199254740990)::bigint;
  end if;
  return nextval(pg_get_serial_sequence(p_table, 'id'));
end $$;
