/** The Kubernetes provisioning backend: see kubernetes-backend.ts. */
export { createKubernetesBackend, type KubernetesBackend } from './kubernetes-backend.ts'
export { loadKubeConfig } from './load-kube-config.ts'
export { KubernetesApiError } from './api-errors.ts'
export type { KubernetesBackendOptions } from './options.ts'
export type { JobOutcome, JobSpec, JobVolume, KubeJobs } from './jobs.ts'
