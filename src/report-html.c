/* placeholder */
#include "config.h"
#include "aivet.h"
#include "report.h"
char *report_html(const cJSON *report) { (void)report; return xstrdup("<html></html>\n"); }
