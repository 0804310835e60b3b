import Testing

/// The suites that load the shared broker most (several services, restarts, SIGKILL) run one after
/// the other: under the sanitizers, run side by side, they slowed each other past their waits.
@Suite(.serialized) enum BrokerLoadTests {}
