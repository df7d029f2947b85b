/*
 * marshal.h
 *		Ruby Marshal 4.8 codec, free of PostgreSQL headers.
 *
 * The codec is built into the extension and, on its own, into the unit
 * tests and fuzzers.  It never allocates except through MarshalHooks, and
 * its hooks may leave by longjmp (PostgreSQL's ereport): all state lives in
 * memory obtained from the hooks, so nothing leaks when they do.
 *
 * This header includes the codec's topic headers, each on the ones before:
 *   marshal_stream.h   the stream: errors, type bytes, hooks, validation,
 *                      the object index, hex and Base64
 *   marshal_cursor.h   reading a validated stream
 *   marshal_writer.h   writing one: writer, re-encoder, Ruby literals
 *   marshal_class.h    the Ruby and Rails classes the codec knows
 *   marshal_ruby.h     Ruby values: numbers, times, inspect, cache entries
 *   marshal_view.h     the JSON view and Active Record attributes in it
 *   marshal_edit.h     changing a value as Ruby would change the object
 */
#ifndef RBMARSHAL_MARSHAL_H
#define RBMARSHAL_MARSHAL_H

#include "marshal_stream.h"
#include "marshal_cursor.h"
#include "marshal_writer.h"
#include "marshal_class.h"
#include "marshal_ruby.h"
#include "marshal_view.h"
#include "marshal_edit.h"

#endif							/* RBMARSHAL_MARSHAL_H */
