-- Portal Launcher: fewer indexes on the launch audit log, the hottest insert of a launch.
-- Lists run newest first by id (the primary key) with launches_app_name_id_idx and
-- launches_outcome_id_idx for their filters; these two are no longer read.
drop index launches_created_at_idx;
drop index launches_app_outcome_idx;
