/* SPDX-License-Identifier: MIT */
/* Unit tests for fleet_params' host order: a connection that could not be
 * made tries the next host of a multi-host CONNINFO first next time, its
 * host, hostaddr and port lists turned together; a single port stays. */
#include "fleet_params.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

/* Parameters as libpq's keywords and values, NULL-ended. */
static void params(struct fleet_params *f, const char *const *kv)
{
	size_t n = 0;

	while (kv[2 * n])
		n++;
	f->keywords = calloc(n + 1, sizeof *f->keywords);
	f->values = calloc(n + 1, sizeof *f->values);
	for (size_t i = 0; i < n; i++) {
		f->keywords[i] = strdup(kv[2 * i]);
		f->values[i] = strdup(kv[2 * i + 1]);
	}
}

static const char *value(const struct fleet_params *f, const char *keyword)
{
	for (size_t i = 0; f->keywords[i]; i++)
		if (strcmp(f->keywords[i], keyword) == 0)
			return f->values[i];
	return NULL;
}

static void test_next_host(void)
{
	struct fleet_params f = { 0 };

	params(&f, (const char *const[]){ "host", "db1,db2,db3", "port", "5432,5433,5434", "dbname",
					  "tfd", NULL });
	fleet_params_next_host(&f);
	check(strcmp(value(&f, "host"), "db2,db3,db1") == 0, "hosts turned: %s", value(&f, "host"));
	check(strcmp(value(&f, "port"), "5433,5434,5432") == 0, "ports with them: %s",
	      value(&f, "port"));
	check(strcmp(value(&f, "dbname"), "tfd") == 0, "the rest as it was");
	fleet_params_next_host(&f);
	fleet_params_next_host(&f);
	check(strcmp(value(&f, "host"), "db1,db2,db3") == 0, "round: %s", value(&f, "host"));
	fleet_params_free(&f);

	params(&f, (const char *const[]){ "host", "/run/a,/run/b", "port", "5432", NULL });
	fleet_params_next_host(&f);
	check(strcmp(value(&f, "host"), "/run/b,/run/a") == 0, "sockets: %s", value(&f, "host"));
	check(strcmp(value(&f, "port"), "5432") == 0, "one port, every host's");
	fleet_params_free(&f);

	params(&f, (const char *const[]){ "hostaddr", "10.0.0.1,10.0.0.2", NULL });
	fleet_params_next_host(&f);
	check(strcmp(value(&f, "hostaddr"), "10.0.0.2,10.0.0.1") == 0, "addresses: %s",
	      value(&f, "hostaddr"));
	fleet_params_free(&f);

	params(&f, (const char *const[]){ "host", "db", "port", "5432", NULL });
	fleet_params_next_host(&f);
	check(strcmp(value(&f, "host"), "db") == 0, "one host: as it was");
	fleet_params_free(&f);

	params(&f, (const char *const[]){ "dbname", "tfd", NULL });
	fleet_params_next_host(&f);
	check(strcmp(value(&f, "dbname"), "tfd") == 0, "no host (PGHOST's): nothing to turn");
	fleet_params_free(&f);
}

int main(void)
{
	test_next_host();
	return tally_finish(&tally, "fleet_params");
}
