/*
 * sse.c: a server-sent events reader (the WHATWG event-stream format) over
 * a whole response body: "event:" and "data:" fields, data lines joined by
 * newlines, events ended by a blank line, comments and unknown fields
 * ignored, any of CRLF, LF or CR ending a line. A last event without its
 * blank line was cut off and is not delivered.
 */
#include "config.h"

#include <string.h>

#include "provider.h"

size_t
sse_parse(const char *buf, size_t len, sse_fn fn, void *arg)
{
	struct buf event, data;
	size_t i = 0, n = 0;
	int have_data = 0;

	buf_init(&event);
	buf_init(&data);
	buf_adds(&event, "");
	buf_adds(&data, "");
	while (i < len) {
		size_t start = i, end, name_len;
		const char *line, *value;
		size_t value_len;

		while (i < len && buf[i] != '\n' && buf[i] != '\r')
			i++;
		if (i == len)
			break;   /* no line end: the stream was cut here */
		end = i;
		if (buf[i] == '\r' && i + 1 < len && buf[i + 1] == '\n')
			i++;
		i++;
		line = buf + start;
		if (end == start) {
			if (have_data) {
				fn(arg, event.data, data.data);
				n++;
			}
			event.len = data.len = 0;
			event.data[0] = data.data[0] = '\0';
			have_data = 0;
			continue;
		}
		if (line[0] == ':')
			continue;
		name_len = 0;
		while (start + name_len < end && line[name_len] != ':')
			name_len++;
		value = line + name_len;
		value_len = end - start - name_len;
		if (value_len > 0) {   /* skip the colon and one optional space */
			value++, value_len--;
			if (value_len > 0 && *value == ' ')
				value++, value_len--;
		}
		if (name_len == 5 && memcmp(line, "event", 5) == 0) {
			event.len = 0;
			buf_add(&event, value, value_len);
		} else if (name_len == 4 && memcmp(line, "data", 4) == 0) {
			if (have_data)
				buf_add(&data, "\n", 1);
			buf_add(&data, value, value_len);
			have_data = 1;
		}
	}
	buf_free(&event);
	buf_free(&data);
	return n;
}
