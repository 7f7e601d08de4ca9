-- 015-rounds.sql: one round at a time. A final round goes on as one round
-- N+1 ("assess reopen"), never two: at most one round follows any round.
-- Starting a second round beside an open one, or a new round 1 beside a
-- final one, is refused by aivet before it writes (one_round_at_a_time() in
-- src/domain/assess/assess.c), and on PostgreSQL by the server as well
-- (pg/015-rounds.sql), where other logins share the database.
CREATE UNIQUE INDEX assessment_one_next ON assessment(parent_id) WHERE parent_id IS NOT NULL;
