// SPDX-License-Identifier: GPL-2.0-only
/* One runner for every suite; Check prints the closing summary line. */
#include <stdlib.h>

#include "helpers.h"

int main(void)
{
	SRunner *sr = srunner_create(suite_tracefile());
	int failed;

	srunner_add_suite(sr, suite_page());
	srunner_add_suite(sr, suite_merge());
	srunner_add_suite(sr, suite_spool());
	srunner_add_suite(sr, suite_spool_read());
	srunner_add_suite(sr, suite_printfmt());
	srunner_add_suite(sr, suite_ring());
	srunner_add_suite(sr, suite_trigger());
	srunner_add_suite(sr, suite_marker());
	srunner_add_suite(sr, suite_map());
	srunner_add_suite(sr, suite_cgroups());
	srunner_add_suite(sr, suite_analyse());
	srunner_add_suite(sr, suite_stacks());
	srunner_add_suite(sr, suite_phases());
	srunner_add_suite(sr, suite_capture());
	srunner_add_suite(sr, suite_output());
	srunner_add_suite(sr, suite_events());
	srunner_add_suite(sr, suite_source());
	srunner_add_suite(sr, suite_util());
	srunner_add_suite(sr, suite_compress());
	srunner_add_suite(sr, suite_report());
	srunner_add_suite(sr, suite_schema());
	srunner_add_suite(sr, suite_cgroupsview());
	srunner_add_suite(sr, suite_plot());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
