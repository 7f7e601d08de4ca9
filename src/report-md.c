/* placeholder */
#include "config.h"
#include "aivet.h"
#include "report.h"
char *report_markdown(const cJSON *report) { (void)report; return xstrdup("# report\n"); }
