/*
 * rbmarshal_zones.c
 *		The abbreviation tzinfo gives a Rails time zone at an instant, from
 *		PostgreSQL's copy of the same tz database: TimeWithZone#inspect shows
 *		it ("IST"), and the bytes hold only the zone's Rails name.
 */
#include "rbmarshal.h"

#include "pgtime.h"

#include "rbmarshal_zones.h"

/* MarshalHooks.zone_abbrev: zone is a Rails name ("Chennai") or a tz name */
bool
rbmarshal_zone_abbrev(const char *zone, int64_t epoch, char *out, size_t size)
{
	const char *tzname = zone;
	pg_tz	   *tz;
	pg_time_t	t = (pg_time_t) epoch;
	struct pg_tm *tm;

	for (size_t i = 0; i < lengthof(rails_zones); i++)
		if (strcmp(zone, rails_zones[i].rails) == 0)
			tzname = rails_zones[i].tz;
	tz = pg_tzset(tzname);
	if (tz == NULL || (tm = pg_localtime(&t, tz)) == NULL || tm->tm_zone == NULL)
		return false;
	strlcpy(out, tm->tm_zone, size);
	return true;
}
