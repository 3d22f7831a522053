import Synchronization

/// A value computed the first time it is read, once, from whichever thread reads it first: for the parts of an
/// observation most callers never look at (the instance owner map, the salient boxes), so that a batch that only
/// writes cutouts does not pay for them.
///
/// ```swift
/// let boxes = OnDemand { expensiveBoxes() }
/// print(boxes.value.count)   // computed here; later reads return the same value
/// ```
final class OnDemand<Value: Sendable>: Sendable {
    private let state: Mutex<(value: Value?, make: (@Sendable () -> Value)?)>

    init(_ make: @escaping @Sendable () -> Value) {
        state = Mutex((nil, make))
    }

    var value: Value {
        state.withLock { state in
            if let value = state.value { return value }
            let value = state.make!()
            state = (value, nil)  // the closure's captures (e.g. a label map) are released with it
            return value
        }
    }
}
