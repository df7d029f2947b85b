/*
 * rbmarshal_zones.c
 *		The abbreviation tzinfo gives a Rails time zone at an instant, from
 *		PostgreSQL's copy of the same tz database: TimeWithZone#inspect shows
 *		it ("IST"), and the bytes hold only the zone's Rails name.
 */
#include "rbmarshal.h"

#include "pgtime.h"

#include "rbmarshal_zones.h"

/*
 * MarshalHooks.zone_known: ActiveSupport::TimeZone[name] of Rails 7.2 is a
 * zone for a MAPPING key and for a tz identifier TZInfo finds (as the
 * database names it: TZInfo's are case-sensitive, PostgreSQL's lookup not).
 */
bool
rbmarshal_zone_known(const char *zone)
{
	pg_tz	   *tz;

	for (size_t i = 0; i < lengthof(rails_zones); i++)
		if (strcmp(zone, rails_zones[i].rails) == 0)
			return true;
	tz = pg_tzset(zone);
	return tz != NULL && strcmp(pg_get_timezone_name(tz), zone) == 0;
}

/*
 * MarshalHooks.zone_abbrev: zone is a Rails name ("Chennai") or a tz name,
 * offset the UTC offset the value holds (tzinfo's at that instant).
 *
 * PostgreSQL's tz code follows a zone's last rule (its POSIX TZ string) for
 * ever; tzinfo generates transitions from it only up to a hundred years
 * after the present and keeps the last offset beyond (New York stays EST in
 * a July of 2300, Sydney AEDT).  Where the database's offset at the instant
 * is not the value's, the abbreviation is the one the zone has for the
 * value's offset in the two years before: the last rule's.
 */
bool
rbmarshal_zone_abbrev(const char *zone, int64_t epoch, int64_t offset, char *out,
					  size_t size)
{
	const char *tzname = zone;
	pg_tz	   *tz;
	pg_time_t	t = (pg_time_t) epoch;
	struct pg_tm *tm;

	for (size_t i = 0; i < lengthof(rails_zones); i++)
		if (strcmp(zone, rails_zones[i].rails) == 0)
			tzname = rails_zones[i].tz;
	tz = pg_tzset(tzname);
	if (tz == NULL)
		return false;
	for (int month = 0; month <= 24; month++)
	{
		t = (pg_time_t) (epoch - (int64_t) month * 30 * 86400);
		if ((tm = pg_localtime(&t, tz)) == NULL || tm->tm_zone == NULL)
			return false;
		if (tm->tm_gmtoff == offset)
		{
			strlcpy(out, tm->tm_zone, size);
			return true;
		}
	}
	return false;
}
