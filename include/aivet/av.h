/*
 * aivet/av.h: one invocation of aivet, as every command and screen gets it:
 * the database (opened on first use by av_db()), who acts, and the global
 * options. The core, since the database is opened here (av.c).
 */
#ifndef AIVET_AV_H
#define AIVET_AV_H

#include "base.h"
#include "db.h"

/* Everything a command needs: the database, who acts, and global options. */
struct aivet {
	const char *db_path;   /* resolved path of the database */
	int db_named;          /* db_path was named with --db or AIVET_DB, not found by default */
	struct db *db;           /* opened lazily by av_db() */
	char actor[128];
	const char *progname;
	int is_demo;
	/* Called once each time av_db() opens the database, so that a layer
	 * above the core runs its own settling at every opening: the program
	 * (main.c, for both front ends) settles the probe runs a dead process
	 * left behind (the engine's probe_runs_settle), which the core may not
	 * call. No front end's state or hook; may be NULL. */
	void (*on_open)(struct aivet *av);
};

/* Opens (creating and migrating) the database on first use (av.c). */
struct db *av_db(struct aivet *av, struct aerr *err);
void av_close(struct aivet *av);

#endif
