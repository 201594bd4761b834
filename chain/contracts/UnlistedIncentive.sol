// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// An incentive of a type the campaign service does not list, for the protocol's own BoostCore: just
/// enough of its AIncentive for createBoost to take it as a base implementation, clone it and
/// initialise the clone, with a component interface no listed type has. It pays nothing. The
/// indexer skips it, and the boost's other incentives keep their ids on chain.
contract UnlistedIncentive {
    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId != 0xffffffff;
    }

    function getComponentInterface() external pure returns (bytes4) {
        return 0x5eed1e55;
    }

    /// Nothing to take from the budget.
    function preflight(bytes calldata) external pure returns (bytes memory) {
        return "";
    }

    function initialize(bytes calldata) external {}
}
