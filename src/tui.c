/* placeholder */
#include "config.h"
#include "aivet.h"
int tui_main(struct aivet *av, struct aerr *err) { (void)av; return aerr_set(err, AV_USAGE, "no tui yet"); }
