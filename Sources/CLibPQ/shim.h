// libpq, PostgreSQL's client library (Debian: libpq-dev). Its headers live in /usr/include/postgresql;
// libpq-fe.h includes its neighbours with quotes, so they resolve from there.
#include <postgresql/libpq-fe.h>
