-- Limits that writers and settings must honour, found by a review as a user.
-- A value the extension writes must be readable back (COPY, restore): YAML
-- nested to the reader's 1000 containers is 1001 levels as a stream (the leaf
-- counts), so it is refused when written, and one container less is accepted.
SELECT rbmarshal_is_valid(rbmarshal_from_yaml(repeat('[', 999) || '1' || repeat(']', 999))::bytea);
SELECT rbmarshal_from_yaml(repeat('[', 1000) || '1' || repeat(']', 1000));
SELECT rbmarshal_from_yaml(repeat('{a: ', 1000) || '1' || repeat('}', 1000));
SELECT rbmarshal_is_valid(rbmarshal_from_yaml(repeat('- ', 999) || '1')::bytea);
SELECT rbmarshal_from_yaml(repeat('- ', 1000) || '1');
-- IMMUTABLE rbmarshal_cache_entry follows rbmarshal.max_inflated_size, so a
-- user must not change it (an expression index would disagree with a scan).
CREATE ROLE regress_rbm_limits;
SET ROLE regress_rbm_limits;
SET rbmarshal.max_inflated_size = '1kB';
RESET ROLE;
SET rbmarshal.max_inflated_size = '1kB';
SHOW rbmarshal.max_inflated_size;
RESET rbmarshal.max_inflated_size;
DROP ROLE regress_rbm_limits;
