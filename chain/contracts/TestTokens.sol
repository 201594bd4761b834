// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "solady/tokens/ERC20.sol";

/// The tokens around the protocol in tests and the demo: not the protocol itself, whose contracts
/// come from the official SDK package's bytecode (scripts/chain/protocol.ts).

/// An ERC-20 anyone can mint, with the metadata given at deployment.
contract TestToken is ERC20 {
    string private _name;
    string private _symbol;
    uint8 private immutable _decimals;

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        _name = name_;
        _symbol = symbol_;
        _decimals = decimals_;
    }

    function name() public view override returns (string memory) {
        return _name;
    }

    function symbol() public view override returns (string memory) {
        return _symbol;
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}

/// A points venue: PointsIncentive calls `issue(address,uint256)` on it for each claim, after
/// checking it may (the venue's `owner()` or its role 1 << 1): this one lets every incentive issue.
contract TestPoints {
    mapping(address => uint256) public balanceOf;

    function owner() external pure returns (address) {
        return address(0);
    }

    function hasAnyRole(address, uint256) external pure returns (bool) {
        return true;
    }

    function issue(address to, uint256 amount) external {
        balanceOf[to] += amount;
    }
}

/// A contract that answers no ERC-20 metadata sensibly: `decimals()` reverts and `symbol()` is not a string.
contract TestBrokenToken {
    function decimals() external pure returns (uint8) {
        revert("no decimals");
    }

    function symbol() external pure returns (uint256) {
        return 42;
    }
}
