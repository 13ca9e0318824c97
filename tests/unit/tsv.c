/* SPDX-License-Identifier: MIT */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tsv.h"

#include <stdlib.h>
#include <string.h>

/* Undoes the corpus escapes in place; only the input column carries them. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (*s != '\\' || s[1] == '\0') {
			*out++ = *s;
			continue;
		}
		s++;
		switch (*s) {
		/* clang-format off */
		case 't': *out++ = '\t'; break;
		case 'n': *out++ = '\n'; break;
		case 'r': *out++ = '\r'; break;
		case '\\': *out++ = '\\'; break;
		default: *out++ = '\\'; *out++ = *s; break;
		}
		/* clang-format on */
	}
	*out = '\0';
}

static void split_fields(char *line, struct tsv_row *row)
{
	row->nfields = 0;
	while (row->nfields < TSV_MAX_FIELDS) {
		row->field[row->nfields++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = '\0';
	}
}

int tsv_each(const char *path, int input_field, int (*row_fn)(const struct tsv_row *row, void *arg),
	     void *arg)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, rows = 0;

	if (!f)
		return -1;
	while ((len = getline(&line, &cap, f)) != -1) {
		struct tsv_row row;

		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (lineno == 1 || line[0] == '#')
			continue;
		row.line = lineno;
		split_fields(line, &row);
		if (input_field < row.nfields)
			unescape(row.field[input_field]);
		row_fn(&row, arg);
		rows++;
	}
	free(line);
	fclose(f);
	return rows;
}

const char *path_join(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
	return buf;
}
