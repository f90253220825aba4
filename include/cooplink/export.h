/* cooplink: symbol visibility. Everything is hidden unless marked COOP_API. */
#ifndef COOPLINK_EXPORT_H
#define COOPLINK_EXPORT_H
#if defined(COOP_BUILDING_LIBRARY) && defined(__GNUC__)
#define COOP_API __attribute__((visibility("default")))
#else
#define COOP_API
#endif
#endif
