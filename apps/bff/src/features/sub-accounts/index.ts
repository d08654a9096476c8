// What other features may use of the sub-accounts feature: a sub-account's name, and whether the
// card service has one (an alert rule's scope).
export { subAccountExists, subAccountName } from './sub-accounts-service';
