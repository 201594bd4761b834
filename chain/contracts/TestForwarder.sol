// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Calls another contract on its sender's behalf, as a multisig or a helper contract does: the call
/// it makes is internal, seen only in traces. `forward` fails when the call fails; `tryForward`
/// does not (its transaction succeeds, the failed call's effects are undone).
contract TestForwarder {
    function forward(address target, bytes calldata data) external {
        (bool ok, bytes memory result) = target.call(data);
        if (!ok) {
            assembly {
                revert(add(result, 32), mload(result))
            }
        }
    }

    function tryForward(address target, bytes calldata data) external returns (bool ok) {
        (ok, ) = target.call(data);
    }
}
