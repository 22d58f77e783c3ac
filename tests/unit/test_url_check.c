/* test_url_check.c - a URL given to an option read whole: what is taken, and what each refusal names */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "url_check.h"

static void taken(const char *url, int want_tls)
{
	struct errinfo err = {{0}, {0}};
	int tls = -1;

	if (url_check(url, "--server", 1, &tls, &err))
		fail_msg("'%s' was refused: %s", url, err.msg);
	assert_int_equal(tls, want_tls);
}

static void refused(const char *url, const char *said)
{
	struct errinfo err = {{0}, {0}};
	int tls = -1;

	if (!url_check(url, "--server", 1, &tls, &err))
		fail_msg("'%s' was taken", url);
	assert_string_equal(err.field, "server");
	if (!strstr(err.msg, said))
		fail_msg("'%s': '%s' does not say '%s'", url, err.msg, said);
	/* every refusal says what is allowed */
	assert_non_null(strstr(err.msg, "(give http://HOST[:PORT] or "
					"https://HOST[:PORT]"));
}

static void test_taken(void **state)
{
	(void)state;
	taken("http://127.0.0.1:8080", 0);
	taken("http://localhost", 0);
	taken("https://lab.example.org", 1);
	taken("https://lab.example.org.", 1);
	taken("https://lab.example.org/", 1);
	taken("https://lab.example.org:8443/numalab/", 1);
	taken("http://[::1]:8080", 0);
	taken("http://[::1]", 0);
	taken("http://[2001:db8::7]/lab", 0);
	taken("http://[fe80::1%25eth0]:8080", 0);
	taken("http://lab_01-a:1", 0);
	taken("http://h:65535/", 0);
}

static void test_scheme_and_host(void **state)
{
	(void)state;
	refused("ftp://x", "its scheme 'ftp' is not http or https");
	refused("HTTP://x", "its scheme 'HTTP' is not http or https");
	refused("lab:8080", "no scheme: it starts with http:// or https://");
	refused("http://", "no host");
	refused("https:///api", "no host");
	refused("http://:8080", "no host");
	refused("http://[::1", "the IPv6 address's '[' is not closed");
	refused("http://[::1:8080/x", "'[' is not closed");
	refused("http://[::1]x", "'x' after the IPv6 address (only ':PORT'");
	refused("http://[nope]:80", "'[nope]' is not an IPv6 address");
	refused("http://[]:80", "'[]' is not an IPv6 address");
	refused("http://[1.2.3.4]", "not an IPv6 address");
	refused("http://::1", "an IPv6 address goes in brackets");
	refused("http://::1]:80", "an IPv6 address goes in brackets");
	refused("http://h]:80", "a ']' without its '['");
	refused("http://1.2.3", "'1.2.3' is not an IPv4 address");
	refused("http://256.1.1.1", "'256.1.1.1' is not an IPv4 address");
	refused("http://a..b", "'a..b' is not a host name");
	refused("http://a b", "'a b' is not a host name");
	refused("http://user:pw@lab", "a user or password in it is not taken");
}

static void test_port_and_path(void **state)
{
	(void)state;
	refused("http://h:0", "port 0 is out of range (1-65535)");
	refused("http://h:70000", "port 70000 is out of range (1-65535)");
	refused("http://[::1]:0", "port 0 is out of range");
	refused("http://h:99999999999999999999", "is out of range");
	refused("http://h:", "the port after ':' is empty");
	refused("http://[::1]:/", "the port after ':' is empty");
	refused("http://h:8o", "port '8o' is not a number");
	refused("http://h:-1", "port '-1' is not a number");
	refused("http://h/p?x=1",
		"a query or fragment ('?', '#') is not taken");
	refused("http://h#top", "a query or fragment");
	refused("http://h/a b", "its path has a space");
}

/* an origin (--cors, --public-url): nothing after the host and port */
static void test_origin(void **state)
{
	struct errinfo err = {{0}, {0}};
	int tls = -1;

	(void)state;
	assert_int_equal(
		url_check("https://lab.example:8443", "--cors", 0, &tls, &err),
		0);
	assert_int_equal(tls, 1);
	assert_int_equal(
		url_check("http://[::1]:8080", "--public-url", 0, &tls, &err),
		0);
	assert_int_not_equal(
		url_check("http://[::1", "--public-url", 0, &tls, &err), 0);
	assert_string_equal(err.field, "public-url");
	assert_non_null(strstr(err.msg,
			       "bad --public-url 'http://[::1': "
			       "the IPv6 address's '[' is not closed"));
	assert_non_null(strstr(err.msg, "nothing after it"));
	assert_int_not_equal(url_check("http://h/x", "--cors", 0, &tls, &err),
			     0);
	assert_non_null(strstr(err.msg, "'/x' after the host is not taken"));
}

static void test_long(void **state)
{
	char url[1100] = "http://h/";

	(void)state;
	memset(url + 9, 'a', sizeof(url) - 10);
	url[sizeof(url) - 1] = '\0';
	refused(url, "longer than 1000 characters");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_taken),
		cmocka_unit_test(test_scheme_and_host),
		cmocka_unit_test(test_port_and_path),
		cmocka_unit_test(test_origin),
		cmocka_unit_test(test_long),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
