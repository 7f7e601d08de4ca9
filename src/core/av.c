/*
 * av.c: the database of one invocation of aivet (struct aivet, aivet.h),
 * opened on first use by whatever needs it, command, screen or engine, and
 * closed once at exit. The query layer (db.h) knows nothing of struct aivet:
 * on a server the actor becomes the login here, and the hook the program set
 * (av->on_open) runs here, once per opening, after the organisation's time
 * zone is read from the database.
 */
#include "config.h"

#include "aivet/core.h"

/* The organisation's zone is the database's: every deadline that ends a day
 * ends it there, whoever runs the command and whatever --tz they give. */
static int
load_org_zone(struct db *db, struct aerr *err)
{
	struct org_timezone tz;

	if (audit_org_timezone(db, &tz, err) != 0)
		return err->code;
	if (org_zone_set(tz.zone, err) != 0)
		return aerr_prefix(err, "the database's organisation time zone (aivet db timezone)");
	return 0;
}

struct db *
av_db(struct aivet *av, struct aerr *err)
{
	if (av->db == NULL) {
		if (db_open(av->db_path, &av->db, err) != 0)
			return NULL;
		/* On a server the actor is the login: --actor cannot speak for another
		 * (the server refuses an audit entry in another's name). */
		if (db_has(av->db, DB_ACTOR_IS_LOGIN) && db_session_user(av->db, av->actor, sizeof av->actor,
		    err) != 0) {
			db_close(av->db);
			av->db = NULL;
			return NULL;
		}
		if (load_org_zone(av->db, err) != 0) {
			db_close(av->db);
			av->db = NULL;
			return NULL;
		}
		if (av->on_open != NULL)
			av->on_open(av);
	}
	return av->db;
}

void
av_close(struct aivet *av)
{
	if (av->db != NULL) {
		db_close(av->db);
		av->db = NULL;
	}
}
