-- booksync's own database role, apart from Temporal's superuser: the `booksync` role owns the `booksync`
-- database, where the ledger and the accounting targets' OAuth connections are kept, and may do nothing
-- else (no superuser, no other database, no roles). docker-compose.yml's booksync-database job runs it with
-- psql as the superuser at every `docker compose up`, so it is idempotent: a role or database already there
-- is kept, the password is set again from BOOKSYNC_DB_PASSWORD (changing it rotates it), and what a
-- `booksync` database from before (the superuser's) holds is handed to the booksync role.

\set ON_ERROR_STOP on
\set QUIET on

\getenv booksync_password BOOKSYNC_DB_PASSWORD
\if :{?booksync_password}
SELECT :'booksync_password' = '' AS booksync_password_missing \gset
\else
\set booksync_password_missing true
\endif
\if :booksync_password_missing
DO $$ BEGIN RAISE EXCEPTION 'BOOKSYNC_DB_PASSWORD is not set: the booksync role needs a password'; END $$;
\endif

SELECT NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'booksync') AS booksync_role_missing \gset
\if :booksync_role_missing
CREATE ROLE booksync;
\endif
ALTER ROLE booksync WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
  PASSWORD :'booksync_password';

SELECT NOT EXISTS (SELECT FROM pg_database WHERE datname = 'booksync') AS booksync_database_missing \gset
\if :booksync_database_missing
CREATE DATABASE booksync OWNER booksync;
\endif
ALTER DATABASE booksync OWNER TO booksync;
-- Only its owner (and the superuser) connects to it.
REVOKE ALL ON DATABASE booksync FROM PUBLIC;

\connect booksync
-- A database from before this role: its tables (their indexes, owned sequences and triggers with them),
-- other sequences, views and functions become booksync's, which migrates and writes them.
DO $$
DECLARE
  statement text;
BEGIN
  FOR statement IN
    SELECT format('ALTER %s %s OWNER TO booksync',
                  CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW'
                                 WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END,
                  c.oid::regclass)
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public'
      AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
      AND c.relowner <> 'booksync'::regrole
      -- A sequence a column owns (serial, identity) follows its table; an extension's objects stay its.
      AND NOT EXISTS (SELECT FROM pg_depend d
                      WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                        AND d.deptype IN ('a', 'i', 'e'))
    UNION ALL
    SELECT format('ALTER ROUTINE %s OWNER TO booksync', p.oid::regprocedure)
    FROM pg_proc p
    JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public' AND p.proowner <> 'booksync'::regrole
      AND NOT EXISTS (SELECT FROM pg_depend d
                      WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
  LOOP
    EXECUTE statement;
  END LOOP;
END $$;
