/* placeholder */
#include "config.h"
#include "aivet.h"
#include "report.h"
cJSON *report_oscal(const cJSON *report) { (void)report; return cJSON_CreateObject(); }
