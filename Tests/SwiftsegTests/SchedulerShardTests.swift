import Swiftseg
import XCTest

/// `--shard auto`: the shard read from each scheduler's variables, and clear refusals.
final class SchedulerShardTests: XCTestCase {
    func shard(_ env: [String: String], count: Int? = nil) throws -> (Int, Int) {
        let s = try SchedulerShard(environment: env, count: count)
        return (s.index, s.count)
    }

    func testEachScheduler() throws {
        XCTAssertTrue(try shard(["JOB_COMPLETION_INDEX": "3"], count: 8) == (3, 8))
        XCTAssertTrue(try shard(["JOB_COMPLETION_INDEX": "3", "SWIFTSEG_SHARD_COUNT": "5"]) == (3, 5))
        XCTAssertTrue(try shard(["SLURM_ARRAY_TASK_ID": "12", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_COUNT": "4",
                                 "SLURM_ARRAY_TASK_STEP": "1"]) == (2, 4))
        XCTAssertTrue(try shard(["AWS_BATCH_JOB_ARRAY_INDEX": "0", "AWS_BATCH_JOB_ARRAY_SIZE": "2"]) == (0, 2))
        XCTAssertTrue(try shard(["CLOUD_RUN_TASK_INDEX": "9", "CLOUD_RUN_TASK_COUNT": "10"]) == (9, 10))
        // --shard-count overrides the scheduler's count.
        XCTAssertTrue(try shard(["CLOUD_RUN_TASK_INDEX": "1", "CLOUD_RUN_TASK_COUNT": "10"], count: 2) == (1, 2))
        XCTAssertTrue(try SchedulerShard(environment: ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "1"]).source.contains("Slurm"))
    }

    func testRefusals() {
        for env in [[:], ["JOB_COMPLETION_INDEX": "1"],                                       // none; no count
                    ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4"],               // index out of range
                    ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "2"],
                    ["AWS_BATCH_JOB_ARRAY_INDEX": "x", "AWS_BATCH_JOB_ARRAY_SIZE": "2"],      // not an integer
                    ["CLOUD_RUN_TASK_INDEX": "0"], ["CLOUD_RUN_TASK_INDEX": "0", "CLOUD_RUN_TASK_COUNT": "0"]] {
            XCTAssertThrowsError(try SchedulerShard(environment: env), "\(env)") { error in
                XCTAssertEqual(SwiftsegError(error).kind, .badRequest)
                XCTAssertTrue(SwiftsegError(error).message.hasPrefix("--shard auto: "))
            }
        }
    }
}
