BEGIN TRANSACTION;
CREATE TABLE gate_chain (
	seq INTEGER NOT NULL, 
	at FLOAT NOT NULL, 
	kind VARCHAR(32) NOT NULL, 
	ref_id VARCHAR(64) NOT NULL, 
	digest VARCHAR(80) NOT NULL, 
	prev_hash VARCHAR(80) NOT NULL, 
	hash VARCHAR(80) NOT NULL, 
	PRIMARY KEY (seq), 
	CONSTRAINT uq_gate_chain_prev UNIQUE (prev_hash), 
	UNIQUE (hash)
);
INSERT INTO "gate_chain" VALUES(1,1.79602615386020541187e+09,'decision','gd_old0000','sha256:8716445be362b0ebdbc8bf87189961009f1f81c5cc16bb276ee174061dca5ea8','sha256:0000000000000000000000000000000000000000000000000000000000000000','sha256:4d2759077af330e0de13bb022ff760b03041d40a8e1015a45624affb94dea44f');
INSERT INTO "gate_chain" VALUES(2,1.796026153863878727e+09,'decision','gd_old0001','sha256:bf5e44b1f0bbffffea2e906ef00439c1255ada4567cf2f1f0b15039ed13e65ed','sha256:4d2759077af330e0de13bb022ff760b03041d40a8e1015a45624affb94dea44f','sha256:ec313db8a810cd22c5838c5e2f91f8cfa508bb838325423a7413c03e53e9fcb6');
INSERT INTO "gate_chain" VALUES(3,1.79602615386466336246e+09,'decision','gd_old0002','sha256:dee9d710493c88deea261e02e8e4242d7ae3fce2a47f344d4640f5bfdaff3e65','sha256:ec313db8a810cd22c5838c5e2f91f8cfa508bb838325423a7413c03e53e9fcb6','sha256:32d9d7454cd3cc016a460809fac6d2aacc1ba443538c8e87663c2b1f7e90f33f');
INSERT INTO "gate_chain" VALUES(4,1.79602615386570954323e+09,'decision','gd_old0003','sha256:91d83b108c0a7cc0ace142ac82297ba6973734acbc2d66550f416c86dc8df435','sha256:32d9d7454cd3cc016a460809fac6d2aacc1ba443538c8e87663c2b1f7e90f33f','sha256:973e00d4f51969e6f445f603b80e70b7c3406069ee1d8cc6576a914314a03daa');
INSERT INTO "gate_chain" VALUES(5,1.79602615386628842357e+09,'decision','gd_old0004','sha256:5790281277b7df23c434fdbf3f68632625652b39236259e9202e98964242b5e5','sha256:973e00d4f51969e6f445f603b80e70b7c3406069ee1d8cc6576a914314a03daa','sha256:ff6a99df7e0bb9af02aee6f82dce7f4786abbe16bdb137c44c254a60ffe188c7');
INSERT INTO "gate_chain" VALUES(6,1.79602615386691331867e+09,'decision','gd_old0005','sha256:bfcb99c1b08d1077dbefabf18a494243126a8b674eed300c5c165a5ea134abfb','sha256:ff6a99df7e0bb9af02aee6f82dce7f4786abbe16bdb137c44c254a60ffe188c7','sha256:af064ddbe952b145eb75f900021ad354c6be31716ac354fe2aa2f0c95fb97081');
INSERT INTO "gate_chain" VALUES(7,1.7960261538718380928e+09,'confirmation','gc_old0001','sha256:24c009b7da7669e5d3db7c24d584afc00439f351313e1aa93e626f344c24840c','sha256:af064ddbe952b145eb75f900021ad354c6be31716ac354fe2aa2f0c95fb97081','sha256:af920062214f1f0f673a626ff60f526738ee379a7b6e58f21084a2329e526df8');
INSERT INTO "gate_chain" VALUES(8,1.79602615387610936169e+09,'confirmation','gc_old0001','sha256:50428f19bc351f8a13d9def2aeb182e171264d32353bf0ed9731a2338338d58c','sha256:af920062214f1f0f673a626ff60f526738ee379a7b6e58f21084a2329e526df8','sha256:209d17599dbfeeb0a8b4e0b84c2247f3253ab7be7dd448f69abe624ac4073ece');
INSERT INTO "gate_chain" VALUES(9,1.79602615388036084172e+09,'receipt','gr_old0000','sha256:77939f2ecbade31cb5b4c3f6d3f8a49ad604d07672ede79b1e6ad625dcd0895f','sha256:209d17599dbfeeb0a8b4e0b84c2247f3253ab7be7dd448f69abe624ac4073ece','sha256:0fc6de7dceebe75c7a88561aa4b3542a439945334333daffd43527757d64fae9');
INSERT INTO "gate_chain" VALUES(10,1.79602615388257694237e+09,'receipt','gr_old0001','sha256:177a9f81f766fc4f872ffec6829d79a783f8f7ba1438c579fa6d54dca1592835','sha256:0fc6de7dceebe75c7a88561aa4b3542a439945334333daffd43527757d64fae9','sha256:8afa0a772093bc78f084745d0908adea0c700d2060919dac26bb8ebc196f1727');
INSERT INTO "gate_chain" VALUES(11,1.79602615388363742827e+09,'receipt','gr_old0002','sha256:816b4880b91b4698804852eaac90abdb26b11bc157c2b3ff2614c42534647bdc','sha256:8afa0a772093bc78f084745d0908adea0c700d2060919dac26bb8ebc196f1727','sha256:cbf17fe5390df4494f9c71b5bef4a06d23cd72c153c4380e97133454f390ae8d');
INSERT INTO "gate_chain" VALUES(12,1.79602615388459730142e+09,'receipt','gr_old0003','sha256:ddcb60012a4e71dc7b8237bb264eb24113d62b682b0e1dbd617009b90e2ea54e','sha256:cbf17fe5390df4494f9c71b5bef4a06d23cd72c153c4380e97133454f390ae8d','sha256:fb6ac32f831cbcc227032c806de6cb3e3cb5f71584ee36aa8f8dc4e6d79e055e');
INSERT INTO "gate_chain" VALUES(13,1.7960261538855397701e+09,'receipt','gr_old0004','sha256:b7084d539000aed06096818d4c7d3f7204bbbd85d3aec14175be50d06742847a','sha256:fb6ac32f831cbcc227032c806de6cb3e3cb5f71584ee36aa8f8dc4e6d79e055e','sha256:0709098b1a1722af849343b0df28e71d7aa5eba9a00e8a1d83d71690d3034ac3');
INSERT INTO "gate_chain" VALUES(14,1.79602615388656854629e+09,'receipt','gr_old0005','sha256:b0565a148e64030d13957ec16b06e6bfa25146dea9f3282211a3ece62bbe5a30','sha256:0709098b1a1722af849343b0df28e71d7aa5eba9a00e8a1d83d71690d3034ac3','sha256:7e7e39e3be51d3544e2107d4e936cb90aa983459177a706a0a6665eb36496fe3');
CREATE TABLE gate_confirmations (
	id VARCHAR(64) NOT NULL, 
	decision_id VARCHAR(64) NOT NULL, 
	created_at FLOAT NOT NULL, 
	expires_at FLOAT NOT NULL, 
	session_id VARCHAR(128) NOT NULL, 
	caller_id VARCHAR(128) NOT NULL, 
	tool VARCHAR(128) NOT NULL, 
	action_digest VARCHAR(80) NOT NULL, 
	state_version VARCHAR(128), 
	memory_ids_json TEXT NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	words TEXT, 
	answered_at FLOAT, 
	answer_message_id VARCHAR(128), 
	chain_seq INTEGER, 
	PRIMARY KEY (id)
);
INSERT INTO "gate_confirmations" VALUES('gc_old0001','gd_old0001',1764489601.2,11764489600.0,'sess-1','alice','book_visit','sha256:0000000000000000000000000000000000000000000000000000000000000002',NULL,'["mem_1"]','confirmed','yes please',1.79602615387579059597e+09,'msg-1',8);
CREATE TABLE gate_decisions (
	id VARCHAR(64) NOT NULL, 
	created_at FLOAT NOT NULL, 
	session_id VARCHAR(128) NOT NULL, 
	caller_id VARCHAR(128) NOT NULL, 
	caller_json TEXT NOT NULL, 
	tool VARCHAR(128) NOT NULL, 
	action_name VARCHAR(128) NOT NULL, 
	args_json TEXT NOT NULL, 
	args_digest VARCHAR(80) NOT NULL, 
	action_digest VARCHAR(80) NOT NULL, 
	policy_name VARCHAR(128) NOT NULL, 
	policy_hash VARCHAR(80) NOT NULL, 
	mode VARCHAR(16) NOT NULL, 
	outcome VARCHAR(16) NOT NULL, 
	enforced_outcome VARCHAR(16) NOT NULL, 
	rule VARCHAR(128) NOT NULL, 
	trace_json TEXT NOT NULL, 
	evidence_json TEXT NOT NULL, 
	service_decision_id VARCHAR(128), 
	state_version VARCHAR(128), 
	confirmation_id VARCHAR(64), 
	call_id VARCHAR(128), 
	latency_ms FLOAT NOT NULL, 
	chain_seq INTEGER, 
	PRIMARY KEY (id)
);
INSERT INTO "gate_decisions" VALUES('gd_old0000',1764489600.0,'sess-0','bob','{"id": "alice", "verified": true, "roles": ["customer"]}','book_visit','booking.create','{"day": "day0"}','sha256:0000000000000000000000000000000000000000000000000000000000000000','sha256:0000000000000000000000000000000000000000000000000000000000000001','book_visit','sha256:abababababababababababababababababababababababababababababababab','enforce','act','act','evidence','[{"rule": "evidence", "outcome": "act", "detail": "old"}]','{"outcome": "act", "reason": "old", "decision_id": "sd_0", "memories": []}','sd_0',NULL,NULL,NULL,3.5,1);
INSERT INTO "gate_decisions" VALUES('gd_old0001',1764489601.0,'sess-1','alice','{"id": "alice", "verified": true, "roles": ["customer"]}','book_visit','booking.create','{"day": "day1"}','sha256:0000000000000000000000000000000000000000000000000000000000000001','sha256:0000000000000000000000000000000000000000000000000000000000000002','book_visit','sha256:abababababababababababababababababababababababababababababababab','enforce','ask','ask','confirm','[{"rule": "evidence", "outcome": "ask", "detail": "old"}]','{"outcome": "ask", "reason": "old", "decision_id": "sd_1", "memories": []}','sd_1',NULL,NULL,NULL,4.5,2);
INSERT INTO "gate_decisions" VALUES('gd_old0002',1764489602.0,'sess-2','bob','{"id": "alice", "verified": true, "roles": ["customer"]}','book_visit','booking.create','{"day": "day2"}','sha256:0000000000000000000000000000000000000000000000000000000000000002','sha256:0000000000000000000000000000000000000000000000000000000000000003','book_visit','sha256:abababababababababababababababababababababababababababababababab','enforce','abstain','abstain','confirm','[{"rule": "evidence", "outcome": "abstain", "detail": "old"}]','{"outcome": "abstain", "reason": "old", "decision_id": null, "memories": []}',NULL,NULL,NULL,NULL,5.5,3);
INSERT INTO "gate_decisions" VALUES('gd_old0003',1764489603.0,'sess-0','alice','{"id": "alice", "verified": true, "roles": ["customer"]}','book_visit','booking.create','{"day": "day3"}','sha256:0000000000000000000000000000000000000000000000000000000000000003','sha256:0000000000000000000000000000000000000000000000000000000000000004','book_visit','sha256:abababababababababababababababababababababababababababababababab','enforce','act','act','evidence','[{"rule": "evidence", "outcome": "act", "detail": "old"}]','{"outcome": "act", "reason": "old", "decision_id": "sd_3", "memories": []}','sd_3',NULL,NULL,NULL,6.5,4);
INSERT INTO "gate_decisions" VALUES('gd_old0004',1764489604.0,'sess-1','bob','{"id": "alice", "verified": true, "roles": ["customer"]}','book_visit','booking.create','{"day": "day4"}','sha256:0000000000000000000000000000000000000000000000000000000000000004','sha256:0000000000000000000000000000000000000000000000000000000000000005','book_visit','sha256:abababababababababababababababababababababababababababababababab','enforce','act','act','evidence','[{"rule": "evidence", "outcome": "act", "detail": "old"}]','{"outcome": "act", "reason": "old", "decision_id": "sd_4", "memories": []}','sd_4',NULL,NULL,NULL,7.5,5);
INSERT INTO "gate_decisions" VALUES('gd_old0005',1764489605.0,'sess-2','alice','{"id": "alice", "verified": true, "roles": ["customer"]}','book_visit','booking.create','{"day": "day5"}','sha256:0000000000000000000000000000000000000000000000000000000000000005','sha256:0000000000000000000000000000000000000000000000000000000000000006','book_visit','sha256:abababababababababababababababababababababababababababababababab','enforce','act','act','evidence','[{"rule": "evidence", "outcome": "act", "detail": "old"}]','{"outcome": "act", "reason": "old", "decision_id": "sd_5", "memories": []}','sd_5',NULL,NULL,NULL,8.5,6);
CREATE TABLE gate_receipts (
	id VARCHAR(64) NOT NULL, 
	decision_id VARCHAR(64) NOT NULL, 
	idempotency_key VARCHAR(128) NOT NULL, 
	created_at FLOAT NOT NULL, 
	caller_id VARCHAR(128) NOT NULL, 
	action_name VARCHAR(128) NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	external_ref VARCHAR(128), 
	error_code VARCHAR(128), 
	chain_seq INTEGER, 
	service_decision_id VARCHAR(128), 
	delivery_state VARCHAR(16) NOT NULL, 
	delivered_at FLOAT, 
	attempts INTEGER NOT NULL, 
	last_error TEXT, 
	policy_alignment VARCHAR(16), 
	service_receipt_id VARCHAR(128), 
	PRIMARY KEY (id), 
	CONSTRAINT uq_gate_receipts_decision UNIQUE (decision_id), 
	CONSTRAINT uq_gate_receipts_key UNIQUE (idempotency_key)
);
INSERT INTO "gate_receipts" VALUES('gr_old0000','gd_old0000','receipt-sd_0',1764489600.5,'bob','booking.create','succeeded','visit-0000',NULL,9,'sd_0','delivered',1.79602615389138793944e+09,2,NULL,'aligned','rcpt_0');
INSERT INTO "gate_receipts" VALUES('gr_old0001','gd_old0001','receipt-sd_1',1764489601.5,'alice','booking.create','skipped',NULL,NULL,10,'sd_1','delivered',1.79602615389283132556e+09,1,NULL,'aligned','rcpt_1');
INSERT INTO "gate_receipts" VALUES('gr_old0002','gd_old0002','receipt-gd_old0002',1764489602.5,'bob','booking.create','skipped',NULL,NULL,11,NULL,'local',NULL,0,NULL,NULL,NULL);
INSERT INTO "gate_receipts" VALUES('gr_old0003','gd_old0003','receipt-sd_3',1764489603.5,'alice','booking.create','succeeded','visit-0003',NULL,12,'sd_3','delivered',1.79602615389427018163e+09,1,NULL,'violated','rcpt_3');
INSERT INTO "gate_receipts" VALUES('gr_old0004','gd_old0004','receipt-sd_4',1764489604.5,'bob','booking.create','failed',NULL,NULL,13,'sd_4','pending',NULL,1,'TimeoutError: ',NULL,NULL);
INSERT INTO "gate_receipts" VALUES('gr_old0005','gd_old0005','receipt-sd_5',1764489605.5,'alice','booking.create','succeeded','visit-0005',NULL,14,'sd_5','rejected',NULL,1,'ServiceError: 400 bad_request: no',NULL,NULL);
CREATE TABLE service_decisions (
	id VARCHAR(64) NOT NULL, 
	user_id VARCHAR(128) NOT NULL, 
	created_at FLOAT NOT NULL, 
	"query" TEXT NOT NULL, 
	outcome VARCHAR(16) NOT NULL, 
	memory_ids_json TEXT NOT NULL, 
	pending_ids_json TEXT NOT NULL, 
	PRIMARY KEY (id)
);
CREATE TABLE service_receipts (
	id VARCHAR(64) NOT NULL, 
	decision_id VARCHAR(64) NOT NULL, 
	user_id VARCHAR(128) NOT NULL, 
	idempotency_key VARCHAR(128) NOT NULL, 
	fingerprint VARCHAR(80) NOT NULL, 
	action_name VARCHAR(128) NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	policy_alignment VARCHAR(16) NOT NULL, 
	external_ref VARCHAR(128), 
	error_code VARCHAR(128), 
	created_at FLOAT NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_service_receipts_decision UNIQUE (decision_id), 
	CONSTRAINT uq_service_receipts_key UNIQUE (user_id, idempotency_key)
);
CREATE INDEX ix_gate_decisions_time ON gate_decisions (created_at);
CREATE INDEX ix_gate_decisions_chain_seq ON gate_decisions (chain_seq);
CREATE INDEX ix_gate_decisions_caller_tool_time ON gate_decisions (caller_id, tool, created_at);
CREATE INDEX ix_gate_confirmations_chain_seq ON gate_confirmations (chain_seq);
CREATE INDEX ix_gate_confirmations_session ON gate_confirmations (session_id, status);
CREATE INDEX ix_gate_confirmations_decision_id ON gate_confirmations (decision_id);
CREATE INDEX ix_gate_receipts_chain_seq ON gate_receipts (chain_seq);
CREATE INDEX ix_gate_receipts_delivery ON gate_receipts (delivery_state);
CREATE INDEX ix_gate_chain_kind_ref ON gate_chain (kind, ref_id);
CREATE INDEX ix_service_decisions_user_id ON service_decisions (user_id);
COMMIT;
