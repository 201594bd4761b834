// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

// Stand-ins for the Boost protocol's contracts (boostxyz/boost-protocol at 7d8321d), written for the
// indexer's tests and the benchmark. They emit the protocol's events and answer its view functions
// with the signatures, struct layouts, enum values and interface ids of /work/shared/spec/chain-facts.md;
// they do not check signatures, move tokens or clone components. Rebuild the committed artifacts with
// `npm run chain:compile` (solc-js from the npm registry, pinned in package.json).

import {LibZip} from "solady/utils/LibZip.sol";

struct Target {
    bool isBase;
    address instance;
    bytes parameters;
}

struct CreateBoostPayload {
    address budget;
    Target action;
    Target validator;
    Target allowList;
    Target[] incentives;
    uint64 protocolFee;
    uint256 maxParticipants;
    address owner;
}

struct Boost {
    address action;
    address validator;
    address allowList;
    address budget;
    address[] incentives;
    uint64 protocolFee;
    uint256 maxParticipants;
    address owner;
}

struct BoostClaimData {
    bytes validatorData;
    bytes incentiveData;
}

interface ITestIncentive {
    function claim(address claimant, bytes calldata data) external returns (bool);
}

/// BoostCore 1.2.0's events and views; createBoost takes LibZip.cdCompress(abi.encode(CreateBoostPayload)).
contract TestBoostCore {
    event BoostCreated(
        uint256 indexed boostId,
        address indexed owner,
        address indexed action,
        uint256 incentiveCount,
        address validator,
        address allowList,
        address budget
    );
    event IncentiveAdded(uint256 indexed boostId, uint256 indexed incentiveId, address indexed incentiveAddress, bool isNewBoost);
    event BoostClaimed(uint256 indexed boostId, uint256 indexed incentiveId, address indexed claimant, address referrer, bytes data);

    uint64 public protocolFee = 1000;
    Boost[] internal _boosts;

    function createBoost(bytes calldata data_) external returns (uint256 boostId) {
        CreateBoostPayload memory payload = abi.decode(LibZip.cdDecompress(data_), (CreateBoostPayload));
        boostId = _boosts.length;
        Boost storage boost = _boosts.push();
        boost.action = payload.action.instance;
        boost.validator = payload.validator.instance;
        boost.allowList = payload.allowList.instance;
        boost.budget = payload.budget;
        boost.protocolFee = protocolFee + payload.protocolFee;
        boost.maxParticipants = payload.maxParticipants;
        boost.owner = payload.owner;
        for (uint256 i = 0; i < payload.incentives.length; i++) {
            boost.incentives.push(payload.incentives[i].instance);
            emit IncentiveAdded(boostId, i, payload.incentives[i].instance, true);
        }
        emit BoostCreated(
            boostId, payload.owner, payload.action.instance, payload.incentives.length, payload.validator.instance,
            payload.allowList.instance, payload.budget
        );
    }

    function addIncentiveToBoost(uint256 boostId, Target calldata incentive) external {
        Boost storage boost = _boosts[boostId];
        boost.incentives.push(incentive.instance);
        emit IncentiveAdded(boostId, boost.incentives.length - 1, incentive.instance, false);
    }

    function claimIncentive(uint256 boostId, uint256 incentiveId, address referrer, bytes calldata data_) external payable {
        _claim(boostId, incentiveId, referrer, data_, msg.sender);
    }

    function claimIncentiveFor(uint256 boostId, uint256 incentiveId, address referrer, bytes calldata data_, address claimant)
        external
        payable
    {
        _claim(boostId, incentiveId, referrer, data_, claimant);
    }

    /// Not in the protocol: many claims in one transaction, so tests and benchmarks make thousands quickly.
    function claimMany(uint256 boostId, uint256 incentiveId, bytes calldata data_, address[] calldata claimants) external {
        for (uint256 i = 0; i < claimants.length; i++) {
            _claim(boostId, incentiveId, address(0), data_, claimants[i]);
        }
    }

    function _claim(uint256 boostId, uint256 incentiveId, address referrer, bytes calldata data_, address claimant) internal {
        Boost storage boost = _boosts[boostId];
        require(ITestIncentive(boost.incentives[incentiveId]).claim(claimant, data_), "claim failed");
        emit BoostClaimed(boostId, incentiveId, claimant, referrer, data_);
    }

    function getBoost(uint256 index) external view returns (Boost memory) {
        return _boosts[index];
    }

    function getBoostCount() external view returns (uint256) {
        return _boosts.length;
    }
}

abstract contract TestIncentive is ITestIncentive {
    event Claimed(address indexed recipient, bytes data);
    /// The proxy generation's IToppable event (the legacy bytecode the SDK ships has no top-up).
    event ToppedUp(address sender, uint256 amount);

    uint256 public claims;

    function getComponentInterface() external pure virtual returns (bytes4);
}

contract TestERC20Incentive is TestIncentive {
    address public asset;
    uint8 public strategy;
    uint256 public reward;
    uint256 public limit;

    constructor(address asset_, uint8 strategy_, uint256 reward_, uint256 limit_) {
        (asset, strategy, reward, limit) = (asset_, strategy_, reward_, limit_);
    }

    function claim(address claimant, bytes calldata) external returns (bool) {
        require(claims < limit, "limit reached");
        claims++;
        emit Claimed(claimant, abi.encodePacked(asset, claimant, reward));
        return true;
    }

    /// ERC20Incentive.topup: POOL only, in whole rewards, each one more claim.
    function topup(uint256 amount) external {
        require(strategy == 0 && amount > 0 && amount % reward == 0, "bad top-up");
        limit += amount / reward;
        emit ToppedUp(msg.sender, amount);
    }

    function getComponentInterface() external pure override returns (bytes4) {
        return 0x7cc1d5bb;
    }
}

struct IncentiveCriteriaV2 {
    uint8 criteriaType;
    bytes32 signature;
    uint32 fieldIndex;
    address targetContract;
    uint8 valueType;
}

contract TestERC20VariableCriteriaIncentiveV2 is TestIncentive {
    address public asset;
    uint256 public reward;
    uint256 public limit;
    uint256 public maxReward;
    uint256 public totalClaimed;
    IncentiveCriteriaV2 internal _criteria;

    constructor(address asset_, uint256 reward_, uint256 limit_, uint256 maxReward_, IncentiveCriteriaV2 memory criteria_) {
        (asset, reward, limit, maxReward) = (asset_, reward_, limit_, maxReward_);
        _criteria = criteria_;
    }

    function claim(address claimant, bytes calldata data_) external returns (bool) {
        BoostClaimData memory claimData = abi.decode(data_, (BoostClaimData));
        uint256 signedAmount = abi.decode(claimData.incentiveData, (uint256));
        uint256 amount = reward == 0 ? signedAmount : (reward * signedAmount) / 1e18;
        if (maxReward != 0 && amount > maxReward) amount = maxReward;
        require(totalClaimed + amount <= limit, "limit reached");
        totalClaimed += amount;
        claims++;
        emit Claimed(claimant, abi.encodePacked(asset, claimant, amount));
        return true;
    }

    /// The variable incentives' topup: the budget (`limit`, in the asset) grows by `amount`.
    function topup(uint256 amount) external {
        require(amount > 0, "bad top-up");
        limit += amount;
        emit ToppedUp(msg.sender, amount);
    }

    function getIncentiveCriteria() external view returns (IncentiveCriteriaV2 memory) {
        return _criteria;
    }

    function getComponentInterface() external pure override returns (bytes4) {
        return 0x52b8e45c;
    }
}

contract TestPointsIncentive is TestIncentive {
    address public venue;
    bytes4 public selector;
    uint256 public reward;
    uint256 public limit;

    constructor(address venue_, bytes4 selector_, uint256 reward_, uint256 limit_) {
        (venue, selector, reward, limit) = (venue_, selector_, reward_, limit_);
    }

    function claim(address claimant, bytes calldata) external returns (bool) {
        require(claims < limit, "limit reached");
        claims++;
        emit Claimed(claimant, abi.encodePacked(venue, claimant, reward));
        return true;
    }

    function getComponentInterface() external pure override returns (bytes4) {
        return 0x0d36a40d;
    }
}

/// AllowListIncentive: claiming adds the claimant to an allow list; it emits no Claimed.
contract TestAllowListIncentive is TestIncentive {
    address public allowList;
    uint256 public limit;

    constructor(address allowList_, uint256 limit_) {
        (allowList, limit) = (allowList_, limit_);
    }

    function claim(address, bytes calldata) external returns (bool) {
        require(claims < limit, "limit reached");
        claims++;
        return true;
    }

    function getComponentInterface() external pure override returns (bytes4) {
        return 0xc2c281ec;
    }
}

/// An incentive of a type the indexer does not know: it must be logged and skipped.
contract TestUnknownIncentive is TestIncentive {
    function claim(address claimant, bytes calldata) external returns (bool) {
        claims++;
        emit Claimed(claimant, abi.encodePacked(address(this), claimant, uint256(1)));
        return true;
    }

    function getComponentInterface() external pure override returns (bytes4) {
        return 0xdeadbeef;
    }
}

struct Criteria {
    uint8 filterType;
    uint8 fieldType;
    uint32 fieldIndex;
    bytes filterData;
}

struct ActionStep {
    bytes32 signature;
    uint8 signatureType;
    uint8 actionType;
    address targetContract;
    uint256 chainid;
    Criteria actionParameter;
}

struct ActionClaimant {
    uint8 signatureType;
    bytes32 signature;
    uint32 fieldIndex;
    address targetContract;
    uint256 chainid;
}

contract TestEventAction {
    bytes internal _steps;
    ActionClaimant internal _claimant;

    constructor(ActionStep[] memory steps_, ActionClaimant memory claimant_) {
        // Structs with bytes cannot be copied from memory to storage: keep them ABI-encoded.
        _steps = abi.encode(steps_);
        _claimant = claimant_;
    }

    function getActionSteps() external view returns (ActionStep[] memory) {
        return abi.decode(_steps, (ActionStep[]));
    }

    function getActionClaimant() external view returns (ActionClaimant memory) {
        return _claimant;
    }

    function getComponentInterface() external pure returns (bytes4) {
        return 0x7687b0ed;
    }
}

/// SimpleAllowList (0x1392d798), or with `deny` SimpleDenyList (0x3d30a22c; owner 0x0 = the open allow list).
contract TestAllowList {
    address public owner;
    bool internal _deny;
    mapping(address => bool) internal _listed;

    constructor(address owner_, address[] memory users_, bool deny_) {
        (owner, _deny) = (owner_, deny_);
        for (uint256 i = 0; i < users_.length; i++) {
            _listed[users_[i]] = true;
        }
    }

    function isAllowed(address user, bytes calldata) external view returns (bool) {
        return _listed[user] != _deny;
    }

    function getComponentInterface() external view returns (bytes4) {
        return _deny ? bytes4(0x3d30a22c) : bytes4(0x1392d798);
    }
}
