import Foundation

/// `--shard auto`: which shard of a batch this process is, read from the job scheduler that started it, so one
/// command line serves every task of an array job.
///
/// ```swift
/// let shard = try SchedulerShard(environment: ProcessInfo.processInfo.environment)
/// print(shard.index, shard.count, shard.source)   // 3 16 "Slurm array (SLURM_ARRAY_TASK_ID − …)"
/// ```
///
/// Read, in this order (the first scheduler whose index variable is set wins):
/// - Kubernetes Indexed Job: `JOB_COMPLETION_INDEX`; Kubernetes sets no count, so it comes from `count`
///   (`--shard-count N`) or `SWIFTSEG_SHARD_COUNT`;
/// - Slurm job arrays: `SLURM_ARRAY_TASK_ID` − `SLURM_ARRAY_TASK_MIN` of `SLURM_ARRAY_TASK_COUNT` (refused when
///   `SLURM_ARRAY_TASK_STEP` is not 1: the tasks would not be 0 ..< count);
/// - AWS Batch array jobs: `AWS_BATCH_JOB_ARRAY_INDEX` of `AWS_BATCH_JOB_ARRAY_SIZE`;
/// - Cloud Run jobs: `CLOUD_RUN_TASK_INDEX` of `CLOUD_RUN_TASK_COUNT`.
public struct SchedulerShard: Sendable, Equatable {
    public let index: Int
    public let count: Int
    /// Which scheduler and variables gave them, for the log line.
    public let source: String

    /// Throws `SwiftsegError` (bad request) naming what is missing or inconsistent. `count` overrides the
    /// scheduler's count (required for Kubernetes, which sets none).
    public init(environment env: [String: String], count override: Int? = nil) throws {
        func integer(_ name: String) throws -> Int? {
            guard let text = env[name] else { return nil }
            guard let v = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw SwiftsegError(.badRequest, "--shard auto: \(name) is '\(text)', not an integer")
            }
            return v
        }
        var index: Int, count: Int?, source: String
        if let k8s = try integer("JOB_COMPLETION_INDEX") {
            index = k8s
            count = try integer("SWIFTSEG_SHARD_COUNT")
            source = "Kubernetes Indexed Job (JOB_COMPLETION_INDEX"
                + (override != nil ? ", --shard-count)" : count != nil ? ", SWIFTSEG_SHARD_COUNT)" : ")")
            if count == nil && override == nil {
                throw SwiftsegError(.badRequest, "--shard auto: Kubernetes sets JOB_COMPLETION_INDEX but no count; give --shard-count N (the Job's completions) or set SWIFTSEG_SHARD_COUNT")
            }
        } else if let task = try integer("SLURM_ARRAY_TASK_ID") {
            if let step = try integer("SLURM_ARRAY_TASK_STEP"), step != 1 {
                throw SwiftsegError(.badRequest, "--shard auto: SLURM_ARRAY_TASK_STEP is \(step); use an array with step 1 (--array=0-15) or --shard I/N")
            }
            index = task - (try integer("SLURM_ARRAY_TASK_MIN") ?? 0)
            count = try integer("SLURM_ARRAY_TASK_COUNT")
            source = "Slurm array (SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_COUNT)"
        } else if let aws = try integer("AWS_BATCH_JOB_ARRAY_INDEX") {
            index = aws
            count = try integer("AWS_BATCH_JOB_ARRAY_SIZE")
            source = "AWS Batch array job (AWS_BATCH_JOB_ARRAY_INDEX, AWS_BATCH_JOB_ARRAY_SIZE)"
        } else if let run = try integer("CLOUD_RUN_TASK_INDEX") {
            index = run
            count = try integer("CLOUD_RUN_TASK_COUNT")
            source = "Cloud Run job (CLOUD_RUN_TASK_INDEX, CLOUD_RUN_TASK_COUNT)"
        } else {
            throw SwiftsegError(.badRequest, "--shard auto: no scheduler's task index is set (JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX, CLOUD_RUN_TASK_INDEX); use --shard I/N")
        }
        if let override { count = override }
        guard let count, count >= 1 else {
            throw SwiftsegError(.badRequest, "--shard auto: \(source) gives no task count ≥ 1")
        }
        guard (0..<count).contains(index) else {
            throw SwiftsegError(.badRequest, "--shard auto: task \(index) is not in 0 ..< \(count) (\(source))")
        }
        self.index = index
        self.count = count
        self.source = source
    }
}
