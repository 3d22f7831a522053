import SwiftsegRuntime

/// A residual U-block: an input REBNCONV, then a small U-Net whose output is added back to it.
protocol RSUBlock: Sendable {
    var inChannels: Int { get }
    var outChannels: Int { get }
    var rebnconvin: REBNCONV { get }
    /// Level `i` of the block's U on `input`, writing `hx{i}d` (plus `residual`, at level 1) into `out`, and
    /// its max-pool into `pooled` if given.
    func level(_ i: Int, input: TensorView, into out: TensorView, residual: TensorView?, pooled: TensorView?,
               context: ExecutionContext)
}

extension RSUBlock {
    /// `hxin = rebnconvin(x)`, then the U from level 1, whose last REBNCONV adds `hxin` back: `hx1d + hxin`
    /// (and max-pools it into `pooled`, if given, for U2Net's next stage). `x` is read only by the first conv
    /// and `out` written only by the last, so `out` may share memory with `x` (U2Net's decoder stages write
    /// their output into their own input's buffer). With `head`, `x`'s first channels are `upsample(head)`,
    /// made by the first conv (``REBNCONV``).
    func callAsFunction(_ x: TensorView, upsampling head: TensorView? = nil, into out: TensorView,
                        pooledInto pooled: TensorView? = nil, context: ExecutionContext) {
        let arena = context.arena, mark = arena.mark()
        defer { arena.release(to: mark) }
        let hxin = arena.tensor(channels: outChannels, height: x.height, width: x.width)
        rebnconvin(x, upsampling: head, into: hxin, context: context)
        level(1, input: hxin, into: out, residual: hxin, pooled: pooled, context: context)
    }
}

/// RSU-L (L = 7, 6, 5, 4): L-1 encoder REBNCONVs with 2×2 max-pooling between them, a dilated (2) REBNCONV
/// at the bottom, and L-1 decoder REBNCONVs each taking `cat(upsampled deeper, skip)`.
///
/// `rebnconv[i-1]` is the paper's `rebnconv{i}` (i = 1…L) and `rebnconvd[i-1]` its `rebnconv{i}d`
/// (i = 1…L-1).
public struct RSU: RSUBlock {
    public let height: Int
    public let inChannels, midChannels, outChannels: Int
    public let rebnconvin: REBNCONV
    public let rebnconv: [REBNCONV]
    public let rebnconvd: [REBNCONV]

    init(_ w: inout WeightLoader, _ path: String, height: Int, inChannels: Int, midChannels mid: Int,
         outChannels: Int) throws {
        self.height = height
        self.inChannels = inChannels
        self.midChannels = mid
        self.outChannels = outChannels
        rebnconvin = try REBNCONV(&w, "\(path).rebnconvin", inChannels: inChannels, outChannels: outChannels, dirate: 1)
        var enc = [try REBNCONV(&w, "\(path).rebnconv1", inChannels: outChannels, outChannels: mid, dirate: 1)]
        for i in 2..<height { enc.append(try REBNCONV(&w, "\(path).rebnconv\(i)", inChannels: mid, outChannels: mid, dirate: 1)) }
        enc.append(try REBNCONV(&w, "\(path).rebnconv\(height)", inChannels: mid, outChannels: mid, dirate: 2))
        rebnconv = enc
        var dec: [REBNCONV] = []
        for i in 1..<height {
            dec.append(try REBNCONV(&w, "\(path).rebnconv\(i)d", inChannels: 2 * mid,
                                    outChannels: i == 1 ? outChannels : mid, dirate: 1))
        }
        rebnconvd = dec
    }

    /// Level `i` of the U: `hx{i} = rebnconv{i}(input)`, the deeper levels on its pooled copy, and
    /// `hx{i}d = rebnconv{i}d(cat(upsample(hx{i+1}d), hx{i}))` into `out`. The concatenation is one buffer:
    /// `hx{i}` is written into its second half, and the first half is the upsampling, which the decoder's conv
    /// makes as it reads it (or writes there first, on the paths that cannot).
    func level(_ i: Int, input: TensorView, into out: TensorView, residual: TensorView?, pooled blockPooled: TensorView?,
               context: ExecutionContext) {
        let arena = context.arena, mark = arena.mark()
        defer { arena.release(to: mark) }
        let mid = midChannels
        let cat = arena.tensor(channels: 2 * mid, height: input.height, width: input.width)
        let hx = cat.channels(mid..<2 * mid)
        if i == height - 1 {
            rebnconv[i - 1](input, into: hx, context: context)
            rebnconv[height - 1](hx, into: cat.channels(0..<mid), context: context)  // dilated bottom, no pooling
        } else {
            let beforePooled = arena.mark()
            // The pooled map lives in the concat's upsampling half, unused until the deeper levels are done.
            let pooled = TensorView(channels: mid, height: MaxPool2D.outputSize(input.height),
                                    width: MaxPool2D.outputSize(input.width), data: cat.data)
            rebnconv[i - 1](input, into: hx, pooledInto: pooled, context: context)  // pooled in the conv's tasks
            let deeper = arena.tensor(channels: mid, height: pooled.height, width: pooled.width)
            level(i + 1, input: pooled, into: deeper, residual: nil, pooled: nil, context: context)
            rebnconvd[i - 1](cat, upsampling: deeper, into: out, residual: residual, pooledInto: blockPooled,
                             context: context)
            arena.release(to: beforePooled)
            return
        }
        rebnconvd[i - 1](cat, into: out, residual: residual, pooledInto: blockPooled, context: context)
    }
}

/// RSU-4F: RSU-4 with dilations 1, 2, 4, 8 instead of pooling, so every map keeps the input's size (used at
/// the lowest resolutions, where pooling would lose too much).
public struct RSU4F: RSUBlock {
    public let inChannels, midChannels, outChannels: Int
    public let rebnconvin: REBNCONV
    /// rebnconv1…rebnconv4 (dilation 1, 2, 4, 8).
    public let rebnconv: [REBNCONV]
    /// rebnconv1d…rebnconv3d (dilation 1, 2, 4).
    public let rebnconvd: [REBNCONV]

    static let dilations = [1, 2, 4, 8]

    init(_ w: inout WeightLoader, _ path: String, inChannels: Int, midChannels mid: Int, outChannels: Int) throws {
        self.inChannels = inChannels
        self.midChannels = mid
        self.outChannels = outChannels
        rebnconvin = try REBNCONV(&w, "\(path).rebnconvin", inChannels: inChannels, outChannels: outChannels, dirate: 1)
        rebnconv = try (1...4).map { i in
            try REBNCONV(&w, "\(path).rebnconv\(i)", inChannels: i == 1 ? outChannels : mid, outChannels: mid,
                         dirate: RSU4F.dilations[i - 1])
        }
        rebnconvd = try (1...3).map { i in
            try REBNCONV(&w, "\(path).rebnconv\(i)d", inChannels: 2 * mid, outChannels: i == 1 ? outChannels : mid,
                         dirate: RSU4F.dilations[i - 1])
        }
    }

    /// Level `i`: `hx{i} = rebnconv{i}(input)`; `hx{i}d = rebnconv{i}d(cat(hx{i+1}d, hx{i}))`, with
    /// `hx4 = rebnconv4(hx3)` standing in for `hx4d` at the bottom.
    func level(_ i: Int, input: TensorView, into out: TensorView, residual: TensorView?, pooled: TensorView?,
               context: ExecutionContext) {
        let arena = context.arena, mark = arena.mark()
        defer { arena.release(to: mark) }
        let mid = midChannels
        let cat = arena.tensor(channels: 2 * mid, height: input.height, width: input.width)
        let hx = cat.channels(mid..<2 * mid)
        rebnconv[i - 1](input, into: hx, context: context)
        if i == 3 {
            rebnconv[3](hx, into: cat.channels(0..<mid), context: context)
        } else {
            level(i + 1, input: hx, into: cat.channels(0..<mid), residual: nil, pooled: nil, context: context)
        }
        rebnconvd[i - 1](cat, into: out, residual: residual, pooledInto: pooled, context: context)
    }
}
