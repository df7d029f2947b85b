/*
 * rbmarshal_subs.c
 *		Subscripting: v['user']['roles'][0], fetch only.
 *
 * Modelled on contrib/hstore/hstore_subs.c.  Each subscript is coerced to
 * text and the chain walks like #>: keys name object entries, integers
 * (or text digits) index arrays.  The result is rbmarshal; a missing key is
 * NULL.  Assignment is refused at parse time.
 */
#include "rbmarshal.h"

#include "catalog/pg_type.h"
#include "executor/execExpr.h"
#include "nodes/nodeFuncs.h"
#include "nodes/subscripting.h"
#include "parser/parse_coerce.h"
#include "parser/parse_expr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

PG_FUNCTION_INFO_V1(rbmarshal_subscript_handler);

static void
rbmarshal_subscript_transform(SubscriptingRef *sbsref, List *indirection,
							  ParseState *pstate, bool isSlice,
							  bool isAssignment)
{
	List	   *upper = NIL;
	ListCell   *lc;

	if (isAssignment)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("rbmarshal subscripting does not support assignment"),
				 errhint("Build a new value instead, for example with jsonb_to_rbmarshal."),
				 parser_errposition(pstate, exprLocation((Node *) indirection))));
	if (isSlice)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("rbmarshal subscript does not support slices"),
				 parser_errposition(pstate, exprLocation((Node *) indirection))));
	foreach(lc, indirection)
	{
		A_Indices  *ai = lfirst_node(A_Indices, lc);
		Node	   *subexpr = transformExpr(pstate, ai->uidx, pstate->p_expr_kind);
		Node	   *coerced;

		/* integers index arrays as their digits do in #> */
		coerced = coerce_to_target_type(pstate, subexpr, exprType(subexpr),
										TEXTOID, -1, COERCION_ASSIGNMENT,
										COERCE_IMPLICIT_CAST, -1);
		if (coerced == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("rbmarshal subscript must be coercible to text"),
					 parser_errposition(pstate, exprLocation(ai->uidx))));
		upper = lappend(upper, coerced);
	}
	sbsref->refupperindexpr = upper;
	sbsref->reflowerindexpr = NIL;
	sbsref->refrestype = sbsref->refcontainertype;
	sbsref->reftypmod = -1;
}

static void
rbmarshal_subscript_fetch(ExprState *state, ExprEvalStep *op,
						  ExprContext *econtext)
{
	SubscriptingRefState *sbsrefstate = op->d.sbsref.state;
	LOCAL_FCINFO(fcinfo, 0);
	Datum		result;

	InitFunctionCallInfoData(*fcinfo, NULL, 0, InvalidOid, NULL, NULL);
	result = rbmarshal_subscript_path(fcinfo,
									  DatumGetRbmarshalPP(*op->resvalue),
									  sbsrefstate->numupper,
									  sbsrefstate->upperindex,
									  sbsrefstate->upperindexnull);
	*op->resnull = fcinfo->isnull;
	*op->resvalue = result;
}

static void
rbmarshal_exec_setup(const SubscriptingRef *sbsref,
					 SubscriptingRefState *sbsrefstate,
					 SubscriptExecSteps *methods)
{
	methods->sbs_check_subscripts = NULL;
	methods->sbs_fetch = rbmarshal_subscript_fetch;
	methods->sbs_assign = NULL;
	methods->sbs_fetch_old = NULL;
}

Datum
rbmarshal_subscript_handler(PG_FUNCTION_ARGS)
{
	static const SubscriptRoutines sbsroutines = {
		.transform = rbmarshal_subscript_transform,
		.exec_setup = rbmarshal_exec_setup,
		.fetch_strict = true,	/* NULL in, NULL out */
		/*
		 * Not leakproof: a missing key is NULL, but a value that cannot be
		 * read (a broken serialized attribute, a limit) raises an error
		 * naming what it found, which must not run before row security.
		 */
		.fetch_leakproof = false,
		.store_leakproof = false
	};

	PG_RETURN_POINTER(&sbsroutines);
}
