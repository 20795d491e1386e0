"""The results explorer and labelling desk: every run's items in one SQLite store, served by Datasette."""
