internal import CSQLite
