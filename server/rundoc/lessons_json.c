/* lessons_json.c - an experiment's classroom lessons as JSON */
#include "lessons_json.h"

#include <string.h>

#include "lesson.h"

json_t *params_text_json(const char *text)
{
	struct strvec argv = STRVEC_INIT;
	json_t *o = json_object();

	params_text_argv(text ? text : "", &argv);
	for (size_t i = 0; i < argv.n; i++) {
		char *eq = strchr(argv.v[i], '=');
		if (!eq)
			continue;
		*eq = '\0';
		json_object_set_new(o, argv.v[i], json_string(eq + 1));
	}
	strvec_clear(&argv);
	return o;
}

json_t *lessons_json(const struct experiment *e)
{
	json_t *a = json_array();

	for (const struct lesson *l = e->lessons; l && l->id; l++) {
		char words[512];
		double value;
		int has = !lesson_article(e, l, words, sizeof(words), &value);
		json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:s, s:s, s:s?}",
				      "id", l->id, "title", l->title,
				      "question", l->question, "params",
				      params_text_json(l->params), "unit",
				      l->unit ? l->unit : "", "answer",
				      l->answer, "chart", l->chart);
		if (o && has &&
		    (json_object_set_new(o, "article", json_string(words)) ||
		     json_object_set_new(o, "article_value",
					 json_real(value)))) {
			json_decref(o);
			o = NULL;
		}
		json_array_append_new(a, o);
	}
	return a;
}
