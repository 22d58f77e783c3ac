/* api_class.h - the classroom's question, the class's guesses and their reveal, over HTTP */
#ifndef NUMALAB_API_CLASS_H
#define NUMALAB_API_CLASS_H

#include <stdint.h>

#include "http.h"
#include "store.h"

/*
 * One question at a time per server: the teacher opens a lesson's question,
 * each signed-in student (a class session) keeps one guess on it, the
 * teacher reveals the distribution and names the run that answers it;
 * the guesses are then kept with that run (guesses.h). Safe from any
 * thread.
 */
struct api_class;
struct runlog;

/* NULL on ENOMEM. A guess is kept by the class link's sign-in session
 * (struct http_request .session); the teacher's stands apart. */
struct api_class *api_class_new(struct store *st);
void api_class_free(struct api_class *c);

/* Whether run id was ever given a class's guesses by this server: its
 * document may still change, so it is not kept serialised. */
int api_class_touched(struct api_class *c, int64_t id);
/*
 * The room's state as the phones follow it, one event of type "class"
 * ({serial, answered, revealed, run}) each time it changes: the question,
 * the reveal and the run at once, a new count of answers at most once a
 * second. A reference for stream_respond; NULL on ENOMEM.
 */
struct runlog *api_class_feed(struct api_class *c);

/* GET /api/class: the question, how many answered, the revealed guesses. */
enum MHD_Result api_class_get(struct http_request *rq, struct api_class *c);
/* PUT /api/class/question {"experiment", "lesson"}: a new question. */
enum MHD_Result api_class_open(struct http_request *rq, struct api_class *c);
/* POST /api/class/guesses {"value"}: the caller's guess, replacing theirs. */
enum MHD_Result api_class_guess(struct http_request *rq, struct api_class *c);
/* POST /api/class/reveal: shows the guesses; no more are taken. */
enum MHD_Result api_class_reveal(struct http_request *rq, struct api_class *c);
/* POST /api/class/run {"run", "teacher_guess"}: the run that answers it. */
enum MHD_Result api_class_run(struct http_request *rq, struct api_class *c);

#endif
