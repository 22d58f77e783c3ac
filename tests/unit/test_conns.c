/* test_conns.c - connections per client: the per-address limit, and room made for a newcomer when the server is full */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "conns.h"

/* A connection's two ends: the server's (given to conns) and the client's,
 * which reads end-of-stream once the server's end is shut down. */
struct end {
	int srv, cli;
	struct conn_rec *rec;
};

static struct sockaddr_storage addr_of(const char *text)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (strchr(text, ':')) {
		struct sockaddr_in6 *s = (void *)&ss;
		s->sin6_family = AF_INET6;
		assert_int_equal(inet_pton(AF_INET6, text, &s->sin6_addr), 1);
	} else {
		struct sockaddr_in *s = (void *)&ss;
		s->sin_family = AF_INET;
		assert_int_equal(inet_pton(AF_INET, text, &s->sin_addr), 1);
	}
	return ss;
}

/* Admits and opens one connection from text; 0 when refused. */
static int open_from(struct conns *c, const char *text, struct end *e)
{
	struct sockaddr_storage ss = addr_of(text);
	int sv[2];

	if (!conns_admit(c, (struct sockaddr *)&ss))
		return 0;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	e->srv = sv[0];
	e->cli = sv[1];
	e->rec = conns_opened(c, (struct sockaddr *)&ss, e->srv);
	assert_non_null(e->rec);
	return 1;
}

/* Whether the server's end was shut down (the client reads the end). */
static int was_shut(struct end *e)
{
	char b;

	return recv(e->cli, &b, 1, MSG_DONTWAIT) == 0;
}

static void close_end(struct conns *c, struct end *e)
{
	conns_closed(c, e->rec);
	close(e->srv);
	close(e->cli);
}

static void test_one_client_is_limited(void **state)
{
	struct conns_config cfg = {.max_total = 64, .max_client = 3};
	struct conns *c = conns_new(&cfg);
	struct end e[4];

	(void)state;
	for (int i = 0; i < 3; i++)
		assert_true(open_from(c, "192.0.2.1", &e[i]));
	assert_false(open_from(c, "192.0.2.1", &e[3]));
	assert_true(open_from(c, "192.0.2.2", &e[3]));
	/* one closed: room for one more */
	close_end(c, &e[0]);
	assert_true(open_from(c, "192.0.2.1", &e[0]));
	for (int i = 0; i < 4; i++) {
		assert_false(was_shut(&e[i]));
		close_end(c, &e[i]);
	}
	conns_free(c);
}

static void test_a_newcomer_gets_the_busiest_ones_longest_idle(void **state)
{
	struct conns_config cfg = {.max_total = 8, .max_client = 8};
	struct conns *c = conns_new(&cfg);
	struct end a[5], b[3], n[2];

	(void)state;
	for (int i = 0; i < 5; i++)
		assert_true(open_from(c, "192.0.2.1", &a[i]));
	for (int i = 0; i < 3; i++)
		assert_true(open_from(c, "192.0.2.2", &b[i]));
	/* a[0] had a request since: a[1] has been idle longest */
	conns_active(c, a[0].rec, 1);
	conns_active(c, a[0].rec, 0);
	assert_true(open_from(c, "192.0.2.3", &n[0]));
	for (int i = 0; i < 5; i++)
		assert_int_equal(was_shut(&a[i]), i == 1);
	for (int i = 0; i < 3; i++)
		assert_false(was_shut(&b[i]));
	/* a[1] is on its way out: counted until closed, not chosen again */
	assert_true(open_from(c, "192.0.2.3", &n[1]));
	assert_true(was_shut(&a[2]));
	close_end(c, &a[1]);
	close_end(c, &a[2]);
	for (int i = 0; i < 3; i++)
		close_end(c, &b[i]);
	for (int i = 0; i < 2; i++)
		close_end(c, &n[i]);
	for (int i = 3; i < 5; i++)
		close_end(c, &a[i]);
	close_end(c, &a[0]);
	conns_free(c);
}

static void test_no_room_is_taken_from_an_equal(void **state)
{
	struct conns_config cfg = {.max_total = 4, .max_client = 4};
	struct conns *c = conns_new(&cfg);
	struct end a[2], b[3];

	(void)state;
	for (int i = 0; i < 2; i++) {
		assert_true(open_from(c, "192.0.2.1", &a[i]));
		assert_true(open_from(c, "192.0.2.2", &b[i]));
	}
	/* full: b would hold 3 against a's 2, so a keeps its own */
	assert_false(open_from(c, "192.0.2.2", &b[2]));
	for (int i = 0; i < 2; i++) {
		assert_false(was_shut(&a[i]));
		assert_false(was_shut(&b[i]));
		close_end(c, &a[i]);
		close_end(c, &b[i]);
	}
	conns_free(c);
}

static void test_a_newcomer_among_many_holding_one(void **state)
{
	struct conns_config cfg = {.max_total = 6, .max_client = 8};
	struct conns *c = conns_new(&cfg);
	struct end e[6], n[2];
	char addr[32];

	(void)state;
	for (int i = 0; i < 6; i++) {
		snprintf(addr, sizeof(addr), "192.0.2.%d", 10 + i);
		assert_true(open_from(c, addr, &e[i]));
	}
	/* e[0] is in a request (a stream): never taken; e[1] is the oldest
	 * idle of the addresses holding the most (one each) */
	conns_active(c, e[0].rec, 1);
	assert_true(open_from(c, "192.0.2.99", &n[0]));
	for (int i = 0; i < 6; i++)
		assert_int_equal(was_shut(&e[i]), i == 1);
	/* the newcomer, holding one now, takes no more from those holding one
	 */
	assert_false(open_from(c, "192.0.2.99", &n[1]));
	close_end(c, &e[1]);
	for (int i = 0; i < 6; i++)
		if (i != 1)
			close_end(c, &e[i]);
	close_end(c, &n[0]);
	conns_free(c);
}

static void test_an_ipv6_64_is_one_client(void **state)
{
	struct conns_config cfg = {.max_total = 64, .max_client = 2};
	struct conns *c = conns_new(&cfg);
	struct end e[3];

	(void)state;
	assert_true(open_from(c, "2001:db8:1:2::1", &e[0]));
	assert_true(open_from(c, "2001:db8:1:2:ffff::9", &e[1]));
	assert_false(open_from(c, "2001:db8:1:2:abcd::1", &e[2]));
	assert_true(open_from(c, "2001:db8:1:3::1", &e[2]));
	for (int i = 0; i < 3; i++)
		close_end(c, &e[i]);
	conns_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_client_is_limited),
		cmocka_unit_test(
			test_a_newcomer_gets_the_busiest_ones_longest_idle),
		cmocka_unit_test(test_no_room_is_taken_from_an_equal),
		cmocka_unit_test(test_a_newcomer_among_many_holding_one),
		cmocka_unit_test(test_an_ipv6_64_is_one_client),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
