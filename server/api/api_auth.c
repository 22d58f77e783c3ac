/* api_auth.c - /api/session: signing a browser in with a link's token or the join code, its name, signing out, who it is */
#include "api_auth.h"

#include <string.h>

#include "utf8.h"

/* 0 when name may be shown to others; else -EINVAL with err saying why. */
static int api_name_check(const char *name, struct errinfo *err)
{
	size_t n = strlen(name), at;

	if (n > HTTP_NAME_LEN - 1)
		return errinfo_set(
			err, "name",
			"name is %zu bytes long (at most %d bytes of UTF-8)", n,
			HTTP_NAME_LEN - 1);
	if (utf8_valid_len(name, n) != n)
		return errinfo_set(err, "name", "name is not UTF-8");
	if ((at = utf8_control_at(name, n)) < n)
		return errinfo_set(err, "name",
				   "name has a control character at byte %zu "
				   "(letters, digits, spaces and punctuation "
				   "are allowed)",
				   at);
	return 0;
}

enum MHD_Result api_sign_in(struct http_request *rq, void *ctx)
{
	enum MHD_Result ret = MHD_NO;
	json_t *doc = http_body_json(rq, &ret);
	const char *token = NULL, *code = NULL, *name = "";
	json_error_t jerr;
	struct errinfo err;

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
	} else if (api_name_check(name, &err)) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, err.field, "%s",
				 err.msg);
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
	struct errinfo err;

	(void)ctx;
	if (!doc)
		return ret;
	if (json_unpack_ex(doc, &jerr, JSON_STRICT, "{s:s}", "name", &name))
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, "name",
				 "%s (send {\"name\": \"...\"})", jerr.text);
	else if (api_name_check(name, &err))
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, err.field, "%s",
				 err.msg);
	else
		ret = http_rename(rq, name);
	json_decref(doc);
	return ret;
}

enum MHD_Result api_sign_out(struct http_request *rq, void *ctx)
{
	enum MHD_Result ret;

	(void)ctx;
	if (http_body_none(rq, &ret))
		return ret;
	return http_sign_out(rq);
}

enum MHD_Result api_whoami(struct http_request *rq, void *ctx)
{
	(void)ctx;
	return http_whoami(rq);
}
