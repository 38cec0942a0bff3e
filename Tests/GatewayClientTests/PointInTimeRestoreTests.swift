import Contracts
import Foundation
import Postgres
import RPC
import Synchronization
import Testing
import TestSupport

/// Backups that restore (`make backup`, `make restore TARGET_TIME=…`): the real `identity`
/// executable takes anonymous sign-ups from 8 concurrent streams on a cluster of the test's own
/// (archiving its WAL as db.sh sets every cluster up) while `db.sh backup` takes a base backup;
/// more sign-ups follow, the test notes a time T, more follow still, and `db.sh restore T` builds
/// a new cluster from the backup and the archive. On it every sign-up answered before T exists
/// and none sent after T does; the cluster restored from is untouched; identity started on the
/// restored cluster serves (a session opened before T reads its account, a new sign-up works);
/// and an event consumer following identity's AccountCreated events, its cursor and applied rows
/// restored with the rest, resumes there from its cursor: every account applied once, none twice.
/// Each schema's `restored_to` hook is told T, on the restored cluster only. Before the backup,
/// `db.sh prune-archive` leaves the never backed-up archive only what a backup can need; after it,
/// the WAL from the backup's start, which the restore then replays.
@Suite(.serialized) struct PointInTimeRestoreTests {
    @Test func restoringToATime_keepsEveryWriteAnsweredBeforeIt_noneSentAfter_andIdentityServesOnIt() async throws {
        let source = try await FaultTests.ScratchCluster.start(name: "rv-pitr-pg")
        let restored = FaultTests.ScratchCluster(port: try LocalPort.free(), directory: source.directory + "-restored")
        do {
            try await Self.writeBackUpAndRestore(source: source, restored: restored)
        } catch {
            await restored.remove()
            await source.remove()
            throw error
        }
        await restored.remove()
        await source.remove()
    }

    /// A cluster never backed up (no restore has a start) keeps, after `db.sh prune-archive`, only
    /// the segments from its latest checkpoint's REDO on, which is where a backup taken later starts.
    static func pruningANeverBackedUpArchive_keepsOnlyWhatALaterBackupCanNeed(
        _ cluster: FaultTests.ScratchCluster, admin: PostgresPool
    ) async throws {
        let archive = cluster.directory + "-wal-archive"
        func segments() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: archive).filter { $0.count == 24 }.sorted()
        }
        // Three finished segments with writes, then a checkpoint after them.
        var switched: [String] = []
        for _ in 0..<3 {
            switched.append(try await admin.withConnection { connection in
                _ = try await connection.query("SELECT pg_current_xact_id()")
                return try await connection.query("SELECT pg_walfile_name(pg_switch_wal())")[0].decode(0, as: String.self)
            })
        }
        let redo = try await admin.withConnection { connection in
            try await connection.executeScript("CHECKPOINT")
            return try await connection.query("SELECT redo_wal_file FROM pg_control_checkpoint()")[0].decode(0, as: String.self)
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while try !Set(segments()).isSuperset(of: switched), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let before = try segments()
        #expect(Set(before).isSuperset(of: switched), "the archiver did not copy \(switched)")
        try await cluster.run("prune-archive")
        let after = try segments()
        // Names compare as positions in the WAL (one timeline here).
        #expect(after.allSatisfy { $0 >= redo }, "segments before the REDO point \(redo) stayed: \(after.filter { $0 < redo })")
        #expect(Set(before.filter { $0 >= redo }).isSubset(of: after), "pruning removed a segment at or after the REDO point \(redo)")
        #expect(switched.allSatisfy { $0 < redo } && Set(after).isDisjoint(with: switched))
    }

    static func writeBackUpAndRestore(source: FaultTests.ScratchCluster, restored: FaultTests.ScratchCluster) async throws {
        let port = try LocalPort.free()
        let identity = try await EndToEndServiceProcess.start(
            "identity", environment: FaultTests.identityEnvironment(port: port, postgresURL: source.url(role: "identity")))
        let sourcePool = PostgresPool(configuration: source.configuration(role: "testsvc"))
        let sourceAdmin = PostgresPool(configuration: source.configuration(role: "admin", poolSize: 2))
        let follower = try await FaultTests.Follower.start(identityPort: port, pool: sourcePool, admin: sourceAdmin)
        // A schema's `restored_to(timestamptz)` hook (messaging's keeps pushes from going out
        // twice, see PushMigrations.restoreHorizon): this probe records what db.sh tells it.
        try await sourceAdmin.withConnection { connection in
            try await connection.executeScript("""
                CREATE SCHEMA restore_probe;
                CREATE TABLE restore_probe.told (target timestamptz NOT NULL);
                CREATE FUNCTION restore_probe.restored_to(target timestamptz) RETURNS void LANGUAGE sql AS
                    'INSERT INTO restore_probe.told VALUES (target)';
                """)
        }
        let load = FaultTests.SignUpLoad(port: port, streams: 8)
        #expect(await load.waitForSuccesses(100) != nil)
        try await pruningANeverBackedUpArchive_keepsOnlyWhatALaterBackupCanNeed(source, admin: sourceAdmin)

        // The base backup, taken under the load.
        let backupStarted = ContinuousClock.now
        let backup: String
        do {
            backup = try await source.run("backup")
        } catch {
            await load.stop()
            follower.task.cancel()
            throw error
        }
        let backupTook = ContinuousClock.now - backupStarted
        #expect(FileManager.default.fileExists(atPath: backup + "/data/PG_VERSION"), "db.sh backup printed \(backup)")
        #expect(await load.waitForSuccesses(100) != nil)
        // Pruning now keeps the WAL from the backup's start: the restore below replays it.
        try await source.run("prune-archive")
        let target = FaultTests.SignUpLoad.wallClockMicros()
        #expect(await load.waitForSuccesses(100) != nil)
        await load.stop()
        follower.task.cancel()
        await follower.task.value
        await identity.stop()
        sourcePool.close()
        let answers = load.answers.withLock { $0 }
        let before = answers.filter { $0.answeredMicros < target }
        let after = answers.filter { $0.sentMicros > target }
        #expect(before.count >= 200 && after.count >= 100, "\(before.count) sign-ups before T, \(after.count) after")

        let size = try await sourceAdmin.withConnection { connection in
            try await connection.query("SELECT pg_database_size(current_database())")[0].decode(0, as: Int64.self)
        }

        // `date -d @seconds.micros`: T to the microsecond, as Postgres stamps commits.
        let targetTime = "@\(target / 1_000_000).\(String(format: "%06lld", target % 1_000_000))"
        let restoreStarted = ContinuousClock.now
        let folder = try await source.run("restore", [targetTime], environment: ["RV_RESTORE_DIR": restored.directory])
        let restoreTook = ContinuousClock.now - restoreStarted
        #expect(folder == restored.directory)
        try await restored.run("start")

        let restoredAdmin = PostgresPool(configuration: restored.configuration(role: "admin", poolSize: 1))
        let found = try await FaultTests.stored(answers.map(\.accountID), pool: restoredAdmin)
        let missing = before.filter { found[$0.accountID] != 1 }.count
        let extra = after.filter { found[$0.accountID] != nil }.count
        #expect(missing == 0, "\(missing) of \(before.count) sign-ups answered before T are missing after the restore")
        #expect(extra == 0, "\(extra) of \(after.count) sign-ups sent after T are in the restored cluster")
        // The cluster restored from was only read: every sign-up is still there.
        let kept = try await FaultTests.stored(answers.map(\.accountID), pool: sourceAdmin)
        #expect(answers.filter { kept[$0.accountID] != 1 }.count == 0, "the cluster restored from lost sign-ups")
        // The restored cluster's hooks were told T (to the microsecond); the source's were not.
        let told = try await restoredAdmin.withConnection { connection in
            try await connection.query("SELECT (extract(epoch FROM target) * 1000000)::int8 FROM restore_probe.told")
                .map { try $0.decode(0, as: Int64.self) }
        }
        #expect(told == [target], "restore_probe.restored_to was called with \(told), not [\(target)]")
        let toldSource = try await sourceAdmin.withConnection { connection in
            try await connection.query("SELECT count(*) FROM restore_probe.told")[0].decode(0, as: Int64.self)
        }
        #expect(toldSource == 0)
        sourceAdmin.close()
        restoredAdmin.close()

        // Identity serves on the restored cluster: a session from before T, and a new sign-up.
        let restoredPort = try LocalPort.free()
        let restoredIdentity = try await EndToEndServiceProcess.start(
            "identity", environment: FaultTests.identityEnvironment(port: restoredPort, postgresURL: restored.url(role: "identity")))
        let client = RPCClient(host: "127.0.0.1", port: restoredPort)
        let identityClient = IdentityClient(client: client)
        let witness = try #require(before.last)
        let account = try await identityClient.getAccount(options: .bearer(witness.accessToken))
        #expect(account.id == witness.accountID)
        let fresh = try await identityClient.signInAnonymously(.init(app: "swivo", deviceName: "after the restore"))
        #expect(fresh.account.map { !$0.id.isEmpty } == true)

        // The consumer resumes on the restored cluster from the cursor restored with its rows.
        let restoredPool = PostgresPool(configuration: restored.configuration(role: "testsvc"))
        let appliedAtT = try await follower.applied(pool: restoredPool).count
        let resumeStarted = ContinuousClock.now
        let resumed = try follower.resumed(identityPort: restoredPort, pool: restoredPool)
        var applied: [String: Int] = [:]
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            applied = try await resumed.applied(pool: restoredPool)
            if before.allSatisfy({ applied[$0.accountID] != nil }) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let caughtUp = ContinuousClock.now - resumeStarted
        resumed.task.cancel()
        await resumed.task.value
        restoredPool.close()
        #expect(before.filter { applied[$0.accountID] == nil }.count == 0, "the resumed consumer missed accounts from before T")
        #expect(after.filter { applied[$0.accountID] != nil }.count == 0, "the resumed consumer applied accounts from after T")
        #expect(applied.values.filter { $0 != 1 }.count == 0, "the resumed consumer applied an event twice")
        client.close()
        await restoredIdentity.stop()

        print("pitr: \(answers.count) sign-ups (\(before.count) answered before T, \(after.count) sent after, "
              + "\(answers.count - before.count - after.count) in flight at T); database \(size / 1_048_576) MiB; "
              + "base backup \(backupTook) under load; restore to T (copy, WAL replay, promotion) \(restoreTook); "
              + "the consumer had applied \(appliedAtT) by T and resumed to \(applied.count) in \(caughtUp)")
    }
}
