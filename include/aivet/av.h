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
	/* Called once each time av_db() opens the database: the command layer
	 * settles what a dead process left behind. May be NULL. */
	void (*on_open)(struct aivet *av);
	/* The terminal UI, which "aivet tui" opens: the program hands it to the
	 * command line, which does not call the other front end. May be NULL. */
	int (*tui)(struct aivet *av, struct aerr *err);
	/* The (sub)command running, set by cmd_run() for its usage and options. */
	const struct cmd_entry *cmd;
	const struct cmd_entry *cmd_group;   /* the command whose subcommand it is, or NULL */
	char cmd_path[64];                   /* "incident task add" */
};

/* Opens (creating and migrating) the database on first use (av.c). */
struct db *av_db(struct aivet *av, struct aerr *err);
void av_close(struct aivet *av);

#endif
