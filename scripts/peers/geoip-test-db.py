#!/usr/bin/env python3
"""Writes a tiny MaxMind-format city database for the tests of `server.geoip` (QR-code login).

Two networks with made-up but plausible records, in English and German:
  81.2.69.0/24      United Kingdom / England / London, 51.5142, -0.0931, radius 10 km
  2001:db8:51::/48  Germany / Bayern / München, 48.1374, 11.5755, radius 20 km
Usage: geoip-test-db.py OUTPUT.mmdb  (needs mmdb-writer and netaddr: scripts/peers/requirements.txt)
"""
import sys

from mmdb_writer import MMDBWriter, MmdbU16
from netaddr import IPSet


def place(country, state, city, latitude, longitude, radius):
    return {
        "country": {"names": country},
        "subdivisions": [{"names": state}],
        "city": {"names": city},
        "location": {"latitude": latitude, "longitude": longitude, "accuracy_radius": MmdbU16(radius)},
    }


writer = MMDBWriter(ip_version=6, ipv4_compatible=True, database_type="GeoIP2-City", languages=["en", "de"],
                    description="Identity Connect test data")
writer.insert_network(IPSet(["81.2.69.0/24"]), place(
    {"en": "United Kingdom", "de": "Vereinigtes Königreich"}, {"en": "England", "de": "England"},
    {"en": "London", "de": "London"}, 51.5142, -0.0931, 10))
writer.insert_network(IPSet(["2001:db8:51::/48"]), place(
    {"en": "Germany", "de": "Deutschland"}, {"en": "Bavaria", "de": "Bayern"},
    {"en": "Munich", "de": "München"}, 48.1374, 11.5755, 20))
writer.to_db_file(sys.argv[1])
