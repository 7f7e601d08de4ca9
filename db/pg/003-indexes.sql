-- pg/003-indexes.sql (as db/003-indexes.sql): lookups by vendor that lists and dashboards make for every
-- row (open incidents per vendor), and incident links and timelines by incident.
CREATE INDEX incident_vendor ON incident(vendor_id, status);
CREATE INDEX incident_link_object ON incident_link(object_type, object_id);
CREATE INDEX finding_evidence_evidence ON finding_evidence(evidence_id);
