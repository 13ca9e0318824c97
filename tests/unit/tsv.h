/* SPDX-License-Identifier: MIT */
/* tsv: reads the corpus and vector files (shared/corpus/README.md format)
 * for the unit tests. */
#ifndef TFD_TEST_TSV_H
#define TFD_TEST_TSV_H

#include <stddef.h>
#include <stdio.h>

#define TSV_MAX_FIELDS 8

struct tsv_row {
	int line; /* 1-based line number in the file */
	int nfields;
	char *field[TSV_MAX_FIELDS]; /* point into the row's own buffer */
};

/* Calls ROW_FN for every data line of PATH (header and '#' lines skipped),
 * with the input column (INPUT_FIELD) unescaped (\t \n \r \\). Returns the
 * number of rows read, or -1 if PATH cannot be opened (then nothing is
 * called). ROW_FN returns 0 when the row passed. */
int tsv_each(const char *path, int input_field, int (*row_fn)(const struct tsv_row *row, void *arg),
	     void *arg);

/* Joins DIR and NAME into a static-free buffer the caller provides. */
const char *path_join(char *buf, size_t len, const char *dir, const char *name);

#endif
