/* Fuzz the probe control protocol: message validation, and framing as either end reads it. */
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probe/probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	json_t *m = NULL;
	int sv[2], r;

	/* a body, as proto_recv hands it over */
	if (proto_parse((const char *)data, size, &m, err, sizeof(err)) >= 0)
		json_decref(m);
	/* the same bytes on a socket: length prefix, body, errors from the peer */
	if (size > 200000 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 0;
	if (write(sv[0], data, size) == (ssize_t)size) {
		shutdown(sv[0], SHUT_WR);
		do {
			r = proto_recv(sv[1], 0, PM__COUNT, &m, err, sizeof(err));
			if (r >= 0)
				json_decref(m);
		} while (r >= 0);
	}
	close(sv[0]);
	close(sv[1]);
	return 0;
}
