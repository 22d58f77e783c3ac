/* api_auth.c - /api/session: signing a browser in with a link's token or the join code, its name, signing out, who it is */
#include "api_auth.h"

#include <stdio.h>
#include <string.h>

#include "utf8.h"

static const char *api_name_problem(const char *name, char *why, size_t len)
{
	size_t n = strlen(name), at;

	why[0] = '\0';
	if (n > HTTP_NAME_LEN - 1)
		snprintf(why, len,
			 "name is %zu bytes long (at most %d bytes of UTF-8)",
			 n, HTTP_NAME_LEN - 1);
	else if (utf8_valid_len(name, n) != n)
		snprintf(why, len, "name is not UTF-8");
	else if ((at = utf8_control_at(name, n)) < n)
		snprintf(why, len,
			 "name has a control character at byte %zu "
			 "(letters, digits, spaces and punctuation "
			 "are allowed)",
			 at);
	return why;
}

enum MHD_Result api_sign_in(struct http_request *rq, void *ctx)
{
	enum MHD_Result ret = MHD_NO;
	json_t *doc = http_body_json(rq, &ret);
	const char *token = NULL, *code = NULL, *name = "";
	json_error_t jerr;
	char why[160];

	(void)ctx;
	if (!doc)
		return ret;
	if (json_unpack_ex(doc, &jerr, JSON_STRICT, "{s?:s, s?:s, s?:s}",
			   "token", &token, "code", &code, "name", &name) ||
	    !token == !code) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, NULL,
				 "sign-in body: %s (send {\"token\": \"...\", "
				 "\"name\": \"...\"} or {\"code\": \"123456\", "
				 "\"name\": \"...\"}, name optional)",
				 token && code ? "give 'token' or 'code', not "
						 "both"
				 : !token && !code
					 ? "'token' or 'code' is needed"
					 : jerr.text);
	} else if (*api_name_problem(name, why, sizeof(why))) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, "name", "%s", why);
	} else if (code) {
		ret = http_join(rq, code, name);
	} else {
		ret = http_sign_in(rq, token, name);
	}
	json_decref(doc);
	return ret;
}

enum MHD_Result api_rename(struct http_request *rq, void *ctx)
{
	enum MHD_Result ret = MHD_NO;
	json_t *doc = http_body_json(rq, &ret);
	const char *name = NULL;
	json_error_t jerr;
	char why[160];

	(void)ctx;
	if (!doc)
		return ret;
	if (json_unpack_ex(doc, &jerr, JSON_STRICT, "{s:s}", "name", &name))
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, "name",
				 "%s (send {\"name\": \"...\"})", jerr.text);
	else if (*api_name_problem(name, why, sizeof(why)))
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, "name", "%s", why);
	else
		ret = http_rename(rq, name);
	json_decref(doc);
	return ret;
}

enum MHD_Result api_sign_out(struct http_request *rq, void *ctx)
{
	(void)ctx;
	return http_sign_out(rq);
}

enum MHD_Result api_whoami(struct http_request *rq, void *ctx)
{
	(void)ctx;
	return http_whoami(rq);
}
