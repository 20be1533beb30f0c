#ifndef ICTKIT_CSQLITE_SHIM_H
#define ICTKIT_CSQLITE_SHIM_H

// SQLite: Core Data's SQLite stores (CoreDataFiles).
#include <sqlite3.h>

#endif
