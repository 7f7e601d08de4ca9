/*
 * fuzz-xlsx.c: the workbook reader (xlsx_read_mem) on arbitrary bytes. A
 * workbook is read or refused with a message naming it; what is read holds
 * only cells inside the sheet's limits, with text for every cell, and every
 * date serial it is asked about formats as a date or is refused.
 */
#include "config.h"

#include <string.h>

#include "aivet/domain.h"
#include "xlsx-read.h"
#include "fuzz.h"

FUZZ_TARGET(xlsx)
{
	struct xlsx_book *b = NULL;
	struct aerr err = { 0 };

	if (xlsx_read_mem("fuzz.xlsx", data, size, &b, &err) != 0) {
		FUZZ_ASSERT(b == NULL && err.code == AV_USAGE);
		FUZZ_ASSERT(strncmp(err.msg, "fuzz.xlsx: ", 11) == 0);
		return 0;
	}
	for (int i = 0; i < b->nsheets; i++)
		for (size_t j = 0; j < b->sheets[i].ncells; j++) {
			const struct xlsx_cell *c = &b->sheets[i].cells[j];
			char ref[16], day[11];

			FUZZ_ASSERT(c->row >= 0 && c->row < 1048576 && c->col >= 0 && c->col < 16384);
			FUZZ_ASSERT(c->text != NULL);
			xlsx_ref(c->row, c->col, ref);
			if (c->type == XLSX_NUMBER && xlsx_date(b, c->num, day) == 0)
				FUZZ_ASSERT(strlen(day) == 10 && day[4] == '-' && day[7] == '-');
		}
	xlsx_free(b);
	return 0;
}
