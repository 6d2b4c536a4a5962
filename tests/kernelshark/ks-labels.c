// SPDX-License-Identifier: GPL-2.0-only
/*
 * What KernelShark shows of a recording's block events with blkmap's
 * plugin loaded, through libkshark as the GUI drives it: one line a block
 * event, "TS EVENT INFO"; with "all", every event's line.
 *
 *   ks-labels PLUGIN.so FILE [all]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libkshark.h>
#include <libkshark-plugin.h>

int main(int argc, char **argv)
{
	struct kshark_context *ctx = NULL;
	struct kshark_plugin_list *plugin;
	struct kshark_data_stream *stream;
	struct kshark_entry **entries = NULL;
	ssize_t n, i;
	int sd;

	if (argc != 3 && (argc != 4 || strcmp(argv[3], "all"))) {
		fprintf(stderr, "usage: ks-labels PLUGIN.so FILE [all]\n");
		return 2;
	}
	if (!kshark_instance(&ctx)) {
		fprintf(stderr, "ks-labels: no libkshark context\n");
		return 1;
	}
	sd = kshark_open(ctx, argv[2]);
	stream = sd < 0 ? NULL : kshark_get_data_stream(ctx, sd);
	if (!stream) {
		fprintf(stderr, "ks-labels: libkshark cannot open '%s'\n", argv[2]);
		return 1;
	}
	plugin = kshark_register_plugin(ctx, "blkmap", argv[1]);
	if (!plugin || !plugin->process_interface) {
		fprintf(stderr, "ks-labels: '%s' is no KernelShark plugin\n", argv[1]);
		return 1;
	}
	kshark_register_plugin_to_stream(stream, plugin->process_interface, true);
	if (kshark_handle_all_dpis(stream, KSHARK_PLUGIN_INIT) < 1) {
		fprintf(stderr, "ks-labels: the plugin did not load for '%s'\n", argv[2]);
		return 1;
	}
	n = kshark_load_entries(ctx, sd, &entries);
	for (i = 0; i < n; i++) {
		char *event = kshark_get_event_name(entries[i]), *info;

		if (event && (!strncmp(event, "block/", 6) || argc == 4)) {
			info = kshark_get_info(entries[i]);
			printf("%lld %s %s\n", (long long)entries[i]->ts,
			       strchr(event, '/') ? strchr(event, '/') + 1 : event, info ? info : "");
			free(info);
		}
		free(event);
		free(entries[i]);
	}
	free(entries);
	kshark_handle_all_dpis(stream, KSHARK_PLUGIN_CLOSE);
	kshark_free(ctx);
	return n < 0;
}
