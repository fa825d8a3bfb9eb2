export { startInProcessS3 } from './in-process-s3';
export type { InProcessS3, InProcessS3Options } from './in-process-s3';
