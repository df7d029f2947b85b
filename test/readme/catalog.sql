-- Every SQL object of the extension (its pg_depend entries) and every
-- rbmarshal.* setting, one line each, in the form the README's reference
-- tables write it (test/readme/run.sh compares the two):
--   type       rbmarshal
--   cast       bytea::rbmarshal
--   operator   rbmarshal -> text → rbmarshal
--   function   name(arguments as pg_get_function_arguments prints them) → result
--              (OUT arguments shown as the result row: → (name type, ...))
--   procedure  CALL name(arguments)
--   table      TABLE name
--   setting    SHOW name
-- Defaults lose their ::type decoration, as a person writes them.
WITH ext AS (
	SELECT classid, objid FROM pg_depend
	 WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
	   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'rbmarshal')
),
fn AS (
	SELECT p.oid, p.proname, p.prokind, p.proretset, a.arg, a.n
	  FROM ext JOIN pg_proc p ON ext.classid = 'pg_proc'::regclass AND p.oid = ext.objid
	  LEFT JOIN LATERAL regexp_split_to_table(
			regexp_replace(pg_get_function_arguments(p.oid), '(''|NULL)::[a-z ]+', '\1', 'g'), ', ')
			WITH ORDINALITY a(arg, n) ON a.arg <> ''
)
SELECT format_type(t.oid, NULL)
  FROM ext JOIN pg_type t ON ext.classid = 'pg_type'::regclass AND t.oid = ext.objid
UNION ALL
SELECT format('%s::%s', format_type(c.castsource, NULL), format_type(c.casttarget, NULL))
  FROM ext JOIN pg_cast c ON ext.classid = 'pg_cast'::regclass AND c.oid = ext.objid
UNION ALL
SELECT format('%s %s %s → %s', format_type(o.oprleft, NULL), o.oprname,
              format_type(o.oprright, NULL), format_type(o.oprresult, NULL))
  FROM ext JOIN pg_operator o ON ext.classid = 'pg_operator'::regclass AND o.oid = ext.objid
UNION ALL
SELECT CASE
		WHEN prokind = 'p' THEN format('CALL %s(%s)', proname, regexp_replace(ins, '(^|, )IN ', '\1', 'g'))
		WHEN outs IS NOT NULL THEN format('%s(%s) → %s(%s)', proname, ins,
										  CASE WHEN proretset THEN 'SETOF ' ELSE '' END, outs)
		ELSE format('%s(%s) → %s', proname, ins, pg_get_function_result(oid)) END
  FROM (SELECT oid, proname, prokind, proretset,
			   coalesce(string_agg(arg, ', ' ORDER BY n) FILTER (WHERE arg NOT LIKE 'OUT %'), '') AS ins,
			   string_agg(substr(arg, 5), ', ' ORDER BY n) FILTER (WHERE arg LIKE 'OUT %') AS outs
		  FROM fn GROUP BY oid, proname, prokind, proretset) f
UNION ALL
SELECT format('TABLE %s', c.relname)
  FROM ext JOIN pg_class c ON ext.classid = 'pg_class'::regclass AND c.oid = ext.objid
UNION ALL
SELECT format('SHOW %s', name) FROM pg_settings WHERE name LIKE 'rbmarshal.%'
ORDER BY 1;
