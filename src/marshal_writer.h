/*
 * marshal_writer.h
 *		Writing streams: the writer, the re-encoder and Ruby literals.
 */
#ifndef RBMARSHAL_MARSHAL_WRITER_H
#define RBMARSHAL_MARSHAL_WRITER_H

#include "marshal_cursor.h"

/*
 * The writer (marshal_writer.c): Marshal.dump's bytes, one value at a time
 * in stream order.  Containers announce their size, then their elements
 * (hash: key, value, key, value...) follow.  Errors are sticky and
 * reported by marshal_writer_finish, which hands over the buffer.
 */
typedef struct MarshalWriter MarshalWriter;

extern MarshalWriter *marshal_writer_new(const MarshalHooks *hooks);
extern MarshalStatus marshal_writer_finish(MarshalWriter *w, uint8_t **out,
										   size_t *len);
extern void marshal_writer_free(MarshalWriter *w);
extern void marshal_write_nil(MarshalWriter *w);
extern void marshal_write_bool(MarshalWriter *w, bool v);
extern void marshal_write_int(MarshalWriter *w, int64_t v);
/* An Integer from decimal digits with an optional sign, of any size. */
extern void marshal_write_decimal(MarshalWriter *w, const char *digits,
								  size_t len);
/* A Float; a value equal to an earlier flonum becomes a link, as in MRI. */
extern void marshal_write_float(MarshalWriter *w, double d);
extern void marshal_write_string(MarshalWriter *w, const uint8_t *s,
								 size_t len, MarshalEncoding enc);
/* A UTF-8 hash key as Ruby stores it: equal keys are one frozen object. */
extern void marshal_write_key(MarshalWriter *w, const uint8_t *s, size_t len);
/* A frozen, deduplicated String (MRI's fstring): repeats become links. */
extern uint32_t marshal_write_fstring(MarshalWriter *w, const uint8_t *s,
								  size_t len, MarshalEncoding enc);
/* Time.at(epoch, usec).utc, Date.jd(jd), BigDecimal(text) as MRI dumps them */
extern void marshal_write_time_utc(MarshalWriter *w, int64_t epoch,
								   int32_t usec);
/* Time's _dump bytes (time_mdump's 8, and a far year's extension) */
#define MARSHAL_TIME_DUMP_MAX (8 + 9)
extern size_t marshal_time_dump_bytes(int64_t epoch, int32_t usec, bool utc,
									  uint8_t *out);
extern void marshal_write_date(MarshalWriter *w, int64_t jd);
extern void marshal_write_bigdecimal(MarshalWriter *w, const char *text,
									 size_t len);
extern void marshal_write_symbol(MarshalWriter *w, const uint8_t *name,
								 size_t len);
extern void marshal_write_array(MarshalWriter *w, uint32_t count);
extern void marshal_write_hash(MarshalWriter *w, uint32_t count);

/* Every other case of MRI's w_object, for re-encoding any value. */
extern uint32_t marshal_writer_objects(const MarshalWriter *w);
extern uint32_t marshal_write_remember(MarshalWriter *w);
extern void marshal_write_link(MarshalWriter *w, uint32_t slot);
extern void marshal_write_ivar_wrapper(MarshalWriter *w);
extern void marshal_write_ivar_count(MarshalWriter *w, uint32_t count);
extern void marshal_write_extended(MarshalWriter *w, const uint8_t *module,
								   size_t len);
extern void marshal_write_uclass(MarshalWriter *w, const uint8_t *cls,
								 size_t len);
extern void marshal_write_hash_with_default(MarshalWriter *w, uint32_t count);
extern void marshal_write_string_bytes(MarshalWriter *w, const uint8_t *s,
									   size_t len);
extern void marshal_write_regexp(MarshalWriter *w, const uint8_t *src,
								 size_t len, int options);
extern void marshal_write_class(MarshalWriter *w, int type,
								const uint8_t *name, size_t len);
/* o and S (with their ivar/member count), U and d (data follows) */
extern void marshal_write_named(MarshalWriter *w, int type,
								const uint8_t *cls, size_t len,
								uint32_t count);
extern void marshal_write_userdef(MarshalWriter *w, const uint8_t *cls,
								  size_t clen, const uint8_t *data,
								  size_t len);
extern void marshal_write_bignum(MarshalWriter *w, bool negative,
								 const uint8_t *mag, size_t len);
extern void marshal_write_symbol_enc(MarshalWriter *w, const uint8_t *name,
									 size_t len, MarshalEncoding enc,
									 MarshalBytes encname);
/* an encoding ivar pair: :E true/false, or :encoding and the cached name */
extern void marshal_write_encoding(MarshalWriter *w, MarshalEncoding enc,
								   const uint8_t *name, size_t len);

/*
 * Re-encode the value at pos as MRI's Marshal.dump of the loaded value
 * would: a standalone stream, symbols and links renumbered, objects linked
 * from outside written in full at first use (marshal_reencode.c).
 * marshal_reencode_into writes it as one value of a stream being written.
 */
extern MarshalStatus marshal_reencode_into(MarshalWriter *w,
										   const MarshalDoc *doc, size_t pos,
										   const MarshalHooks *hooks,
										   MarshalError *err);
extern MarshalStatus marshal_reencode(const MarshalDoc *doc, size_t pos,
									  const MarshalHooks *hooks,
									  uint8_t **out, size_t *len,
									  MarshalError *err);

/*
 * marshal_reencode's bytes of a small value made only of nil, true, false,
 * Integers, Arrays, Strings (an encoding their one ivar), one Float and
 * objects a class loads (U, bare u), by copying (the Dates, pairs and
 * Strings an Array of them holds): into out (cap bytes), *len.  False when
 * the value is anything else or longer (the caller re-encodes it).
 */
extern bool marshal_reencode_small(const MarshalDoc *doc, size_t pos,
								   uint8_t *out, size_t cap, size_t *len);

/*
 * A Ruby literal (nil, true, false, numbers, strings, symbols, arrays and
 * hashes) to MRI's Marshal.dump(eval(text)) bytes, evaluating nothing
 * (marshal_literal.c).  Errors are MARSHAL_ERR_SYNTAX at a character offset.
 */
extern MarshalStatus marshal_from_literal(const char *text, size_t len,
										  const MarshalHooks *hooks,
										  uint32_t max_depth, uint8_t **out,
										  size_t *outlen, MarshalError *err);

#endif							/* RBMARSHAL_MARSHAL_WRITER_H */
