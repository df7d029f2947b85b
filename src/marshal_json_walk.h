/*
 * marshal_json_walk.h
 *		The JSON view's walk (marshal_json.c) as its other parts share it:
 *		the walk's state, its errors and budget, and the emitters the walk
 *		and the scalar values (marshal_json_scalar.c) call in each other.
 */
#ifndef RBMARSHAL_MARSHAL_JSON_WALK_H
#define RBMARSHAL_MARSHAL_JSON_WALK_H

#include "marshal_internal.h"

/*
 * Helpers with large buffers that do not themselves recurse keep their own
 * frames: inlined into the recursive walk, they would cost each level of
 * nesting their stack (1000 levels must fit the server's default 2 MB).
 */
#define OWN_FRAME __attribute__((noinline))

/* How many path steps an error message can name. */
#define PATH_STEPS 32

#define PATH_KEY_SHOWN 40		/* bytes of a key an error message shows */

/* A value's Ruby class name as an error message shows it (\xNN for non-text) */
#define CLASS_SHOWN (PATH_KEY_SHOWN * 4 + 1)

typedef struct Walk
{
	const MarshalDoc *doc;
	const MarshalJsonSink *sink;
	MarshalJsonOptions opts;
	const MarshalHooks *hooks;
	MarshalError *err;
	uint64_t	cost;
	uint32_t	depth;
	uint32_t	steps;
	/* positions of the containers being converted, for cycle detection */
	size_t	   *active;
	uint32_t	nactive;
	uint32_t	activecap;
	size_t		active_inline[64];
	MarshalPathStep path[PATH_STEPS];
	/* keys whose text was made on the stack, for path[]; last: not cleared */
	char		scratch[PATH_STEPS][PATH_KEY_SHOWN];
} Walk;

extern const char *jw_class_text(const MarshalNode *n, char buf[CLASS_SHOWN]);

/* errors at the walk's place, the output budget */
extern MarshalStatus jw_fail(Walk *w, MarshalStatus status, size_t offset,
							 const char *fmt,...) __attribute__((format(printf, 4, 5)));
extern MarshalStatus jw_located(Walk *w, MarshalStatus st);
extern MarshalStatus jw_charge(Walk *w, size_t pos, size_t len);

/* the walk (marshal_json.c) */
extern MarshalStatus jw_emit_value(Walk *w, size_t pos, size_t *next);
extern MarshalStatus jw_emit_flat(Walk *w, const MarshalNode *n);
extern MarshalStatus jw_emit_text(Walk *w, size_t pos, const uint8_t *s,
								  size_t len, MarshalEncoding enc,
								  MarshalBytes encname, bool is_key);
extern MarshalStatus jw_emit_time_text(Walk *w, MarshalStatus st,
									   const char *text, size_t len);

/* JSON scalars (marshal_json_scalar.c) */
extern MarshalStatus jw_emit_bigdecimal(Walk *w, const MarshalNode *n);
extern MarshalStatus jw_emit_regexp(Walk *w, const MarshalNode *n);
extern MarshalStatus jw_emit_scalar_object(Walk *w, const MarshalNode *n);

#endif
