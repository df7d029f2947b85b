/*
 * yaml_reader.h
 *		YAML text -> Ruby Marshal bytes, free of PostgreSQL headers.
 *
 * marshal_from_yaml reads the first document of a YAML stream the way
 * Psych 4 (Ruby 3.1) loads it and writes, through the codec's one Marshal
 * writer, the bytes MRI's Marshal.dump(YAML.unsafe_load(text)) writes.
 * Nothing is instantiated: classes named by tags are taken to be plain
 * classes, the core and ActiveSupport classes Psych knows are built as
 * their Ruby code would build them.  With opts->safe it refuses what
 * YAML.safe_load(text, permitted_classes:, aliases:) refuses.
 *
 * Errors: MARSHAL_ERR_SYNTAX (YAML Psych cannot parse), MARSHAL_ERR_LIMIT
 * (the work budget: alias and merge expansion), MARSHAL_ERR_DEPTH,
 * MARSHAL_ERR_UNSUPPORTED (refused by safe mode: a tag or an alias; and
 * Psych's other BadAlias, an alias to an unknown anchor, in either mode),
 * MARSHAL_ERR_UNREPRESENTABLE (a value Psych itself would not load, such
 * as a bad !ruby/range).  err->offset is the byte offset in the text and
 * err->detail starts "line L column C: ".
 */
#ifndef RBMARSHAL_YAML_READER_H
#define RBMARSHAL_YAML_READER_H

#include "marshal.h"

typedef struct YamlOptions
{
	uint32_t	max_depth;		/* nesting limit (MARSHAL_DEFAULT_MAX_DEPTH) */
	bool		safe;			/* YAML.safe_load rules */
	bool		aliases;		/* safe: aliases allowed */
	const char *const *permitted;	/* safe: permitted class names */
	size_t		npermitted;
	/*
	 * When not 0: the loaded value with its shared references expanded
	 * must have at most this many values (else MARSHAL_ERR_LIMIT) and no
	 * cycle (else MARSHAL_ERR_UNREPRESENTABLE), as a JSON view needs.
	 */
	uint64_t	max_expanded;
	/*
	 * When not 0: an Integer of more digits is refused (MARSHAL_ERR_LIMIT),
	 * for a JSON view, whose numbers hold fewer; Ruby has no such limit.
	 */
	size_t		max_digits;
} YamlOptions;

extern void marshal_yaml_options_init(YamlOptions *opts);

extern MarshalStatus marshal_from_yaml(const uint8_t *text, size_t len,
									   const YamlOptions *opts,
									   const MarshalHooks *hooks,
									   uint8_t **out, size_t *outlen,
									   MarshalError *err);

/*
 * After a hook longjmped out of marshal_from_yaml (a cancel): free what
 * libyaml holds (it allocates with malloc, not through the hooks).
 */
extern void marshal_yaml_abort(void);

#endif							/* RBMARSHAL_YAML_READER_H */
