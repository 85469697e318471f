-- Sample data for trying the connector against a local PostgreSQL (see README.md, "Run it locally").
-- Run it as a superuser of that server, e.g.  psql -h 127.0.0.1 -U postgres -f sample-data.sql
-- It makes a read-only role with a public demo password (the one configuration.local.json names:
-- fine on your own machine, never on a shared server) and a table of 50 orders.
drop table if exists public.orders;
create table public.orders (
  id bigint primary key,
  status text not null,
  amount numeric(10, 2) not null,
  updated_at timestamptz
);
insert into public.orders
select i, case when i % 5 = 0 then 'shipped' else 'open' end, i * 1.25, timestamptz '2024-05-01 12:00:00+00' + i * interval '1 minute'
  from generate_series(1, 50) as i;

do $$
begin
  if not exists (select from pg_roles where rolname = 'connector_reader') then
    create role connector_reader login password 'demo-reader-password-c4f1';
  end if;
end
$$;
grant usage on schema public to connector_reader;
grant select on public.orders to connector_reader;
